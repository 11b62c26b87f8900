package logparse

import (
	"bytes"
)

// Syslog: RFC 3164 and RFC 5424 lines, their program tag, and HAProxy's
// HTTP log inside a syslog message.

// syslogTag reads "prog[pid]: " or "prog: " at b[i]: the program is the
// service, the pid a field. ok is false when there is no tag.
func syslogTag(b []byte, i int, r *Record) (int, bool) {
	j := i
	for j < len(b) && j-i <= 64 && b[j] != '[' && b[j] != ':' && b[j] != ' ' {
		j++
	}
	if j == i || j >= len(b) || j-i > 64 {
		return i, false
	}
	prog := b[i:j]
	var pid []byte
	if b[j] == '[' {
		k := bytes.IndexByte(b[j:], ']')
		if k < 0 || k > 24 {
			return i, false
		}
		pid = b[j+1 : j+k]
		j += k + 1
	}
	if j >= len(b) || b[j] != ':' {
		return i, false
	}
	r.Service = prog
	if len(pid) > 0 {
		r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: pid})
	}
	return skipSpace(b, j+1), true
}

// parseSyslog reads syslog lines: RFC 3164 "Jun 14 15:16:01 host
// prog[pid]: msg" (the year inferred), rsyslog's high-precision
// "2024-01-02T03:04:05.123456+00:00 host prog[pid]: msg", and RFC 5424
// "<34>1 2003-10-11T22:14:15.003Z host app procid msgid [sd] msg". Host is a
// field and the program is the service; the level is the priority's
// severity when the line has one, else a level word opening the message.
func parseSyslog(line []byte, tc *TimeCtx, r *Record) LineKind {
	i := 0
	pri := -1
	if len(line) > 2 && line[0] == '<' {
		e := digitsEnd(line, 1)
		if e == 1 || e > 4 || e >= len(line) || line[e] != '>' {
			return LineCont
		}
		p, _ := num(line[1:], e-1)
		if p > 191 {
			return LineCont
		}
		pri, i = p, e+1
	}
	if pri >= 0 && len(line) > i+1 && line[i] == '1' && line[i+1] == ' ' {
		return parse5424(line, i+2, pri, tc, r)
	}
	var ts int64
	var n int
	var ok bool
	iso := i < len(line) && isDigit(line[i])
	if iso {
		// rsyslog's RFC 3339 stamp: the T and a zone tell it from plain text
		ts, n, ok = isoTime(line[i:], tc)
		if ok && (line[i+10] != 'T' || !hasZone(line[i:i+n])) {
			ok = false
		}
	} else {
		ts, n, ok = syslogTime(line[i:], tc)
	}
	if !ok || i+n >= len(line) || line[i+n] != ' ' {
		return LineCont
	}
	i = skipSpace(line, i+n)
	he := token(line, i)
	if he == i {
		return LineCont
	}
	host := line[i:he]
	j, tagged := syslogTag(line, skipSpace(line, he), r)
	if !tagged {
		if iso {
			return LineCont
		}
		j = skipSpace(line, he)
	}
	r.TS = ts
	r.Fields = append(r.Fields, KV{Key: []byte("host"), Val: host})
	if pri >= 0 {
		r.Level = syslogLevel([]byte{byte('0' + pri%8)})
	} else if e, lvl, _ := levelWord(line, j); lvl != "" {
		r.Level = lvl
		j = skipSeps(line, e)
	}
	haproxyHTTP(line[j:], r)
	r.Msg = trimEnd(line[j:])
	return LineTimed
}

// haproxyHTTP reads HAProxy's HTTP log format inside a syslog message,
// `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1
// 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {…} "GET /index.html
// HTTP/1.1"`: the status gives the level (HAProxy writes every request at
// one syslog severity), and the request its fields and grouping key. It
// reports whether msg was such a line.
func haproxyHTTP(msg []byte, r *Record) bool {
	var cols [7][]byte // client, accept date, frontend, backend/server, timers, status, bytes
	i := 0
	for c := range cols {
		e := token(msg, i)
		if e == i {
			return false
		}
		cols[c] = msg[i:e]
		i = skipSpace(msg, e)
	}
	if bytes.IndexByte(cols[0], ':') < 0 || cols[1][0] != '[' || cols[1][len(cols[1])-1] != ']' ||
		bytes.IndexByte(cols[3], '/') < 0 || bytes.Count(cols[4], []byte("/")) < 3 {
		return false
	}
	lvl := statusLevel(cols[5])
	if lvl == "" {
		return false
	}
	if r.Level != "ERROR" {
		r.Level = lvl
	}
	var method, route []byte
	if q := bytes.LastIndexByte(msg[:len(msg)-1], '"'); q > 0 && msg[len(msg)-1] == '"' {
		method, route = requestParts(msg[q+1 : len(msg)-1])
	}
	r.Pattern = accessPattern(method, route, cols[5])
	addRequest(r, method, route, cols[5], cols[6])
	r.Fields = append(r.Fields, KV{Key: []byte("backend"), Val: cols[3]})
	return true
}

// hasZone reports whether an ISO stamp ends with Z or a numeric offset.
func hasZone(b []byte) bool {
	n := len(b)
	return n > 0 && (b[n-1] == 'Z' || b[n-1] == 'z' || (n >= 6 && (b[n-6] == '+' || b[n-6] == '-')) || (n >= 5 && (b[n-5] == '+' || b[n-5] == '-')))
}

// parse5424 reads the RFC 5424 header after "<pri>1 ".
func parse5424(line []byte, i, pri int, tc *TimeCtx, r *Record) LineKind {
	ts, n, ok := isoTime(line[i:], tc)
	if !ok || i+n >= len(line) || line[i+n] != ' ' {
		return LineCont
	}
	r.TS = ts
	r.Level = syslogLevel([]byte{byte('0' + pri%8)})
	i = skipSpace(line, i+n)
	var cols [4][]byte // host, app, procid, msgid
	for c := range cols {
		e := token(line, i)
		cols[c] = line[i:e]
		i = skipSpace(line, e)
	}
	if h := cols[0]; len(h) > 0 && string(h) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("host"), Val: h})
	}
	if a := cols[1]; len(a) > 0 && string(a) != "-" {
		r.Service = a
	}
	if p := cols[2]; len(p) > 0 && string(p) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: p})
	}
	if m := cols[3]; len(m) > 0 && string(m) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("msgid"), Val: m})
	}
	// structured data: "-" or one or more [id k="v"] elements
	if i < len(line) && line[i] == '-' {
		i = skipSpace(line, i+1)
	} else {
		for i < len(line) && line[i] == '[' {
			end := sdEnd(line, i)
			r.Fields = append(r.Fields, KV{Key: []byte("sd"), Val: line[i:end]})
			i = end
		}
		i = skipSpace(line, i)
	}
	msg := bytes.TrimPrefix(line[i:], []byte("\xef\xbb\xbf"))
	r.Msg = trimEnd(msg)
	return LineTimed
}

// sdEnd returns the index after the structured-data element at b[i] ('['),
// honouring quoted values with escapes.
func sdEnd(b []byte, i int) int {
	quoted := false
	for j := i + 1; j < len(b); j++ {
		switch {
		case b[j] == '\\' && quoted:
			j++
		case b[j] == '"':
			quoted = !quoted
		case b[j] == ']' && !quoted:
			return j + 1
		}
	}
	return len(b)
}
