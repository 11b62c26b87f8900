package logparse

import (
	"bytes"
)

// Apache and nginx: the error log's bracketed stamp and the common and
// combined access log formats.

// parseApacheError reads "[Sun Dec 04 04:47:44 2005] [error] msg" and Apache
// 2.4's "[Fri Sep 09 10:42:29.902022 2011] [core:error] [pid 1:tid 2] msg"
// (the module is the service).
func parseApacheError(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 26 || line[0] != '[' {
		return LineCont
	}
	ts, n, ok := ctimeTime(line[1:], tc)
	if !ok || 1+n >= len(line) || line[1+n] != ']' {
		return LineCont
	}
	r.TS = ts
	textTail(line, n+2, r)
	return LineTimed
}

// parseAccess reads the common and combined access log formats of Apache and
// nginx, with an optional leading virtual host (vhost_combined), which is the
// service: `[vhost] client ident user [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 ...`.
// Access logs carry no level; it is read from the status: 5xx ERROR (the
// server failed), 4xx WARN (the client was refused), anything else INFO.
// The message is the request line, status and size.
func parseAccess(line []byte, tc *TimeCtx, r *Record) LineKind {
	k := bytes.Index(line, []byte(" ["))
	if k <= 0 || k > 512 {
		return LineCont
	}
	cols := bytes.Fields(line[:k])
	if len(cols) != 3 && len(cols) != 4 {
		return LineCont
	}
	ts, n, ok := clfTime(line[k+2:], tc)
	i := k + 2 + n
	if !ok || i+2 >= len(line) || line[i] != ']' || line[i+1] != ' ' || line[i+2] != '"' {
		return LineCont
	}
	r.TS = ts
	if len(cols) == 4 { // "%v:%p": the port is no part of the name
		v := cols[0]
		if c := bytes.LastIndexByte(v, ':'); c > 0 && digitsEnd(v, c+1) == len(v) {
			v = v[:c]
		}
		r.nameField("vhost", v)
		cols = cols[1:]
	}
	r.Fields = append(r.Fields, KV{Key: []byte("client"), Val: cols[0]})
	if len(cols[2]) > 0 && string(cols[2]) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("user"), Val: cols[2]})
	}
	ms := i + 2
	q := bytes.IndexByte(line[ms+1:], '"')
	if q < 0 {
		r.Msg = trimEnd(line[ms:])
		return LineTimed
	}
	j := ms + 1 + q + 1 // after the request's closing quote
	st := skipSpace(line, j)
	se := token(line, st)
	status := line[st:se]
	r.Level = statusLevel(status)
	bs := skipSpace(line, se)
	be := token(line, bs)
	method, route := requestParts(line[ms+1 : j-1])
	r.Pattern = accessPattern(method, route, status)
	addRequest(r, method, route, status, line[bs:be])
	numericTails(r, line[be:])
	r.Msg = line[ms:be]
	return LineTimed
}
