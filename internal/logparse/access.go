package logparse

import (
	"bytes"
	"math"
	"strconv"
)

// Access logs by route: every access layout (Apache/nginx common and
// combined, Envoy, HAProxy, Traefik) reads the request into the fields
// method, path (the route: ids in path segments as <id>, no query string),
// status and bytes, its numeric key=value tails (rt=, urt=, request_time=)
// as numbers, and groups its lines by "METHOD route status", so 127 × 504 on
// /api/checkout stays apart from 127 × 200 on /health.

// maxRoute bounds a route, in bytes.
const maxRoute = 128

// requestParts splits a request line "GET /a/b?x=1 HTTP/1.1" into its
// method and route (nil, nil when it is no request line).
func requestParts(req []byte) (method, route []byte) {
	sp := bytes.IndexByte(req, ' ')
	if sp <= 0 || sp > 16 {
		return nil, nil
	}
	for _, c := range req[:sp] {
		if c < 'A' || c > 'Z' {
			return nil, nil
		}
	}
	rest := req[sp+1:]
	if e := bytes.IndexByte(rest, ' '); e >= 0 {
		rest = rest[:e]
	}
	return req[:sp], Route(rest)
}

// Route normalises a request path for grouping: the query string and
// fragment are dropped, a scheme and host before the path too, and a path
// segment that is an id (all digits, a UUID, a hex id of 8 or more, or a
// token with 3 or more digits) becomes <id>.
func Route(path []byte) []byte {
	if k := bytes.IndexAny(path, "?#"); k >= 0 {
		path = path[:k]
	}
	if k := bytes.Index(path, []byte("://")); k >= 0 {
		rest := path[k+3:]
		if s := bytes.IndexByte(rest, '/'); s >= 0 {
			path = rest[s:]
		} else {
			path = []byte("/")
		}
	}
	out := make([]byte, 0, min(len(path), maxRoute))
	for len(path) > 0 && len(out) < maxRoute {
		seg := path
		next := -1
		if k := bytes.IndexByte(path[1:], '/'); k >= 0 {
			next = k + 1
			seg = path[:next]
		}
		if seg[0] == '/' {
			out = append(out, '/')
			seg = seg[1:]
		}
		if isIDSegment(seg) {
			out = append(out, "<id>"...)
		} else {
			out = append(out, seg...)
		}
		if next < 0 {
			break
		}
		path = path[next:]
	}
	if len(out) > maxRoute {
		out = out[:maxRoute]
	}
	return out
}

// isIDSegment reports whether a path segment names one object rather than
// a route: digits only, a UUID, a hex id of 8 or more, or 3 or more digits
// among other characters.
func isIDSegment(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	digits, hex := 0, true
	for _, c := range s {
		switch {
		case isDigit(c):
			digits++
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-':
		default:
			hex = false
		}
	}
	switch {
	case digits == len(s):
		return true
	case hex && digits > 0 && len(s) >= 8:
		return true
	}
	return digits >= 3
}

// accessPattern is the grouping key of an access line: "METHOD route status".
func accessPattern(method, route, status []byte) []byte {
	if method == nil {
		return nil
	}
	p := make([]byte, 0, len(method)+len(route)+len(status)+2)
	p = append(append(append(p, method...), ' '), route...)
	return append(append(p, ' '), status...)
}

// addRequest adds the fields of an access line's request: method, path
// (the route), status and bytes (when written).
func addRequest(r *Record, method, route, status, size []byte) {
	if method != nil {
		r.Fields = append(r.Fields, KV{Key: []byte("method"), Val: method}, KV{Key: []byte("path"), Val: route})
	}
	_, err := strconv.Atoi(string(status))
	r.Fields = append(r.Fields, KV{Key: []byte("status"), Val: status, Num: err == nil})
	addNumber(r, []byte("bytes"), size)
}

// addNumber adds key = v, a number, when v (quotes dropped) is a finite
// decimal number.
func addNumber(r *Record, key, v []byte) {
	v = bytes.Trim(v, `"`)
	if len(v) == 0 || string(v) == "-" {
		return
	}
	if x, err := strconv.ParseFloat(string(v), 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	r.Fields = append(r.Fields, KV{Key: key, Val: v, Num: true})
}

// numericTails adds the key=value pairs of an access line's tail whose
// value is a number (nginx's rt=0.123 urt="0.120", request_time=…), and a
// closing duration written "12ms" (Traefik) as duration_ms. Quoted strings
// (referer, user agent) are skipped whole.
func numericTails(r *Record, tail []byte) {
	// the timings a reader looks for first, then the others, so an entry's
	// bounded fields keep them
	numericTailsOf(r, tail, true)
	numericTailsOf(r, tail, false)
}

// timingKey reports whether key is one of the timings numericTails lists first.
func timingKey(key []byte) bool {
	switch string(key) {
	case "rt", "urt", "request_time", "upstream_response_time":
		return true
	}
	return false
}

// numericTailsOf adds the numeric pairs of tail whose key is (timings) or
// is not (!timings) a timingKey.
func numericTailsOf(r *Record, tail []byte, timings bool) {
	for i := 0; i < len(tail); {
		i = skipSpace(tail, i)
		if i >= len(tail) {
			return
		}
		if tail[i] == '"' {
			if _, j, ok := quoted(tail, i); ok {
				i = j
				continue
			}
			return
		}
		e := token(tail, i)
		tok := tail[i:e]
		if eq := bytes.IndexByte(tok, '='); eq > 0 && eq <= 64 {
			v := tok[eq+1:]
			if len(v) > 0 && v[0] == '"' && !bytes.HasSuffix(v, []byte(`"`)) {
				// a quoted value with blanks ("0.120, 0.003"): its first number
				if _, j, ok := quoted(tail, i+eq+1); ok {
					v, e = tail[i+eq+2:j-1], j
					if c := bytes.IndexByte(v, ','); c >= 0 {
						v = v[:c]
					}
				}
			}
			if timingKey(tok[:eq]) == timings {
				addNumber(r, tok[:eq], v)
			}
		} else if !timings && e == len(tail) && bytes.HasSuffix(tok, []byte("ms")) {
			addNumber(r, []byte("duration_ms"), tok[:len(tok)-2])
		}
		i = e
	}
}
