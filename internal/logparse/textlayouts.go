package logparse

import (
	"bytes"
)

// The text layouts of the registry (layouts.go): each finds its stamp at a
// fixed place of the line and reads what follows into level, service,
// message and fields. A line whose stamp is not where the layout puts it
// continues the previous entry (a stack frame, a wrapped message).

// isWordByte reports whether c may be part of a level or service word.
func isWordByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_'
}

// skipSeps skips the separators text layouts put between their columns:
// blanks, '-', ',', ':' and '|'.
func skipSeps(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '-', ',', ':', '|':
			i++
			continue
		}
		break
	}
	return i
}

// token returns the end of the run of non-blank bytes at b[i].
func token(b []byte, i int) int {
	for i < len(b) && b[i] != ' ' && b[i] != '\t' {
		i++
	}
	return i
}

// trimEnd drops trailing blanks and CRs.
func trimEnd(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// levelWord recognises a level at b[i]: ERROR, [ERROR], ERROR:, level=error,
// DEBUG2, and Apache 2.4's [module:level] (whose module is returned as the
// service). Words under three letters are not levels here ("a", "I" are
// prose); the layouts that use single letters read them themselves.
func levelWord(b []byte, i int) (end int, lvl string, module []byte) {
	j := i
	bracketed := j < len(b) && b[j] == '['
	if bracketed {
		j++
	}
	if bytes.HasPrefix(b[j:], []byte("level=")) {
		j += len("level=")
	}
	ws := j
	for j < len(b) && isWordByte(b[j]) {
		j++
	}
	if bracketed && j < len(b) && b[j] == ':' && j-ws <= 32 { // [core:error]
		module = b[ws:j]
		j++
		ws = j
		for j < len(b) && isWordByte(b[j]) {
			j++
		}
	}
	if j-ws < 3 {
		return i, "", nil
	}
	lvl = normLevel(b[ws:j])
	if lvl == "" {
		return i, "", nil
	}
	if bracketed {
		if j >= len(b) || b[j] != ']' {
			return i, "", nil
		}
		j++
	}
	if j < len(b) && (isWordByte(b[j]) || b[j] == '.' || b[j] == '=') {
		return i, "", nil
	}
	return j, lvl, module
}

// serviceWord recognises a component name at b[i] the way text layouts put
// one after the level: "dfs.DataNode$PacketResponder:" (HDFS, Spark, Python's
// "name:"), "com.foo.Bar - " (log4j), or a dotted name of three or more
// parts ("nova.osapi_compute.wsgi.server"). It returns the name and where
// the message starts.
func serviceWord(b []byte, i int) ([]byte, int) {
	if i >= len(b) || !((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z')) {
		return nil, i
	}
	j, dots := i, 0
	for j < len(b) && j-i <= MaxServiceText {
		c := b[j]
		if c == '.' {
			dots++
		} else if !isWordByte(c) && c != '$' && c != '-' && c != '/' {
			break
		}
		j++
	}
	if j-i > 64 {
		return nil, i
	}
	name := b[i:j]
	switch {
	case j < len(b) && b[j] == ':' && (j+1 == len(b) || b[j+1] == ' ' || b[j+1] != ':'):
		return name, skipSpace(b, j+1)
	case bytes.HasPrefix(b[j:], []byte(" - ")):
		return name, skipSpace(b, j+3)
	case dots >= 2 && (j == len(b) || b[j] == ' '):
		return name, skipSpace(b, j)
	}
	return nil, i
}

// bracketService reads "[name]" at b[i]: up to 64 bytes without blanks.
func bracketService(b []byte, i int) ([]byte, int) {
	if i < len(b) && b[i] == '[' {
		if k := bytes.IndexByte(b[i:], ']'); k > 1 && k <= 64 && bytes.IndexByte(b[i+1:i+k], ' ') < 0 {
			return b[i+1 : i+k], skipSpace(b, i+k+1)
		}
	}
	return nil, i
}

// textTail reads what follows a stamp: an optional thread or process number,
// the level in any of its spellings and separators ("- ERROR", ":ERROR:",
// "[error]", "[core:error]"), the service as "[name]", a component name after
// the level or a name before it ("- name - LEVEL -", Python), and the message.
func textTail(line []byte, i int, r *Record) {
	i = skipSeps(line, i)
	if j := digitsEnd(line, i); j > i && j < len(line) && line[j] == ' ' {
		k := skipSpace(line, j)
		if _, lvl, _ := levelWord(line, k); lvl != "" {
			r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: line[i:j]})
			i = k
		}
	}
	if thr, j, ok := bracketed(line, i, MaxServiceText); ok && len(thr) > 0 { // "[thread] LEVEL logger - msg"
		k := skipSpace(line, j)
		if e, lvl, _ := levelWord(line, k); lvl != "" && (looksThread(thr) || dottedNext(line, skipSeps(line, e))) {
			r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: bytes.TrimSpace(thr)})
			r.Level = lvl
			i = skipSeps(line, e)
		}
	}
	if j, lvl, module := levelWord(line, i); r.Level == "" && lvl != "" {
		r.Level = lvl
		r.Service = module
		sep := j
		i = skipSeps(line, j)
		if springTail(line, i, r) || zapTail(line, sep, r) {
			return
		}
		if thr, j, ok := bracketed(line, i, MaxServiceText); ok && len(thr) > 0 && (looksThread(thr) || dottedNext(line, skipSeps(line, j)) || bytes.HasPrefix(line[skipSpace(line, j):], []byte("- "))) {
			// "%t:%C{1}@%L" (ZooKeeper): the class is the service
			if c, at := bytes.LastIndexByte(thr, ':'), bytes.LastIndexByte(thr, '@'); c > 0 && at > c+1 && digitsEnd(thr, at+1) == len(thr) {
				r.Service = thr[c+1 : at]
				thr = thr[:c]
			}
			r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: bytes.TrimSpace(thr)})
			i = skipSeps(line, j)
		}
	}
	if r.Service == nil {
		if svc, j := bracketService(line, i); svc != nil {
			r.Service, i = svc, j
		}
	}
	if r.Level == "" && r.Service == nil { // "ts - name - LEVEL - msg" (Python)
		if svc, j := serviceWord(line, i); svc != nil {
			if k, lvl, _ := levelWord(line, skipSeps(line, j)); lvl != "" {
				r.Service, r.Level, i = svc, lvl, skipSeps(line, k)
			}
		}
	}
	if r.Level == "" { // "ts [svc] LEVEL msg"
		if j, lvl, _ := levelWord(line, i); lvl != "" {
			r.Level = lvl
			i = skipSeps(line, j)
		}
	} else if r.Service == nil {
		if svc, j := serviceWord(line, i); svc != nil {
			r.Service, i = svc, j
		}
	}
	if bytes.HasPrefix(line[i:], []byte("- ")) {
		i = skipSpace(line, i+2)
	}
	r.Msg = trimEnd(line[i:])
	if r.Service == nil && r.Level != "" {
		r.Service, r.Msg = loggerAtEnd(r.Msg)
	}
}

// loggerAtEnd splits log4j 1's "message (com.foo.Bar)" (Kafka's
// "[%d] %p %m (%c)%n") into the logger, a dotted name, and the message.
func loggerAtEnd(msg []byte) (logger, rest []byte) {
	n := len(msg)
	if n < 4 || msg[n-1] != ')' {
		return nil, msg
	}
	k := bytes.LastIndex(msg, []byte(" ("))
	if k < 0 || n-k > MaxServiceText {
		return nil, msg
	}
	name := msg[k+2 : n-1]
	if bytes.IndexByte(name, '.') <= 0 || bytes.ContainsAny(name, " ()=,") {
		return nil, msg
	}
	return name, trimEnd(msg[:k])
}

// digitsEnd is the end of the run of digits at b[i].
func digitsEnd(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// afterStamp reports whether the stamp may end at b[i]: at the end of the
// line or before a blank or a column separator (',' ':' '|').
func afterStamp(b []byte, i int) bool {
	return i >= len(b) || b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == ',' || b[i] == ':' || b[i] == '|'
}

// parseText reads "TIMESTAMP [LEVEL] [[service]] message" with an ISO stamp
// (also "2006/01/02 15:04:05", nginx) or a syslog stamp, optionally in
// brackets, and the level in any spelling textTail knows.
func parseText(line []byte, tc *TimeCtx, r *Record) LineKind {
	i := skipSpace(line, 0)
	bracket := i < len(line) && line[i] == '['
	if bracket {
		i++
	}
	ts, n, ok := leadingTime(line[i:], tc)
	if !ok {
		return LineCont
	}
	i += n
	if bracket {
		if i >= len(line) || line[i] != ']' {
			return LineCont
		}
		i++
	}
	if !afterStamp(line, i) {
		return LineCont
	}
	r.TS = ts
	textTail(line, i, r)
	return LineTimed
}

// stampTail parses lines that start with a stamp read by stamp, followed by
// the columns textTail reads (HDFS, Spark).
func stampTail(line []byte, tc *TimeCtx, r *Record, stamp func([]byte, *TimeCtx) (int64, int, bool)) LineKind {
	ts, n, ok := stamp(line, tc)
	if !ok || !afterStamp(line, n) {
		return LineCont
	}
	r.TS = ts
	textTail(line, n, r)
	return LineTimed
}

// parseHDFS reads "081109 203615 148 INFO dfs.DataNode$PacketResponder: msg".
func parseHDFS(line []byte, tc *TimeCtx, r *Record) LineKind {
	return stampTail(line, tc, r, yymmddTime)
}

// parseSpark reads "17/06/09 20:10:40 INFO executor.Backend: msg".
func parseSpark(line []byte, tc *TimeCtx, r *Record) LineKind {
	return stampTail(line, tc, r, yySlashTime)
}

// parseCompact reads "20171223-22:15:29:606|Step_LSC|30002312|msg": the
// component is the service, the number a pid field.
func parseCompact(line []byte, tc *TimeCtx, r *Record) LineKind {
	ts, n, ok := compactTime(line, tc)
	if !ok || n >= len(line) || line[n] != '|' {
		return LineCont
	}
	r.TS = ts
	rest := line[n+1:]
	if k := bytes.IndexByte(rest, '|'); k > 0 && k <= 64 {
		r.Service = rest[:k]
		rest = rest[k+1:]
		if k := bytes.IndexByte(rest, '|'); k > 0 && digitsEnd(rest, 0) == k {
			r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: rest[:k]})
			rest = rest[k+1:]
		}
	}
	if j, lvl, _ := levelWord(rest, 0); lvl != "" {
		r.Level = lvl
		rest = rest[skipSeps(rest, j):]
	}
	r.Msg = trimEnd(rest)
	return LineTimed
}

// parseMonthDay reads "[10.30 16:49:06] chrome.exe - msg" (Proxifier): the
// program before " - " is the service; the year is inferred.
func parseMonthDay(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 16 || line[0] != '[' || line[15] != ']' {
		return LineCont
	}
	ts, ok := monthDayTime(line[1:15], tc)
	if !ok {
		return LineCont
	}
	r.TS = ts
	i := skipSpace(line, 16)
	if k := bytes.Index(line[i:], []byte(" - ")); k > 0 && k <= 64 && bytes.IndexByte(line[i:i+k], ' ') < 0 {
		r.Service = line[i : i+k]
		i = skipSpace(line, i+k+3)
	}
	if j, lvl, _ := levelWord(line, i); lvl != "" {
		r.Level = lvl
		i = skipSeps(line, j)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// parseCBS reads Windows CBS: "2016-09-28 04:30:30, Info  CBS  msg": the
// level after the comma, the component (CBS, CSI) as the service.
func parseCBS(line []byte, tc *TimeCtx, r *Record) LineKind {
	ts, n, ok := isoTime(line, tc.Loc)
	if !ok || n+1 >= len(line) || line[n] != ',' || line[n+1] != ' ' {
		return LineCont
	}
	i := skipSpace(line, n+1)
	j, lvl, _ := levelWord(line, i)
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	i = skipSpace(line, j)
	if e := token(line, i); e > i && e-i <= 16 && e < len(line) {
		r.Service = line[i:e]
		i = skipSpace(line, e)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// parseFileDated reads lines that start with the name of the file they came
// from, itself holding a date ("nova-api.log.1.2017-05-16_13:53:08 2017-05-16
// 00:00:00.008 25746 INFO nova.api msg", OpenStack): the name becomes the
// field "file" and the rest is read as text.
func parseFileDated(line []byte, tc *TimeCtx, r *Record) LineKind {
	e := token(line, 0)
	if e == 0 || e >= len(line) || e > 256 || !containsDate(line[:e]) {
		return LineCont
	}
	if _, _, ok := isoTime(line, tc.Loc); ok {
		return LineCont // the line starts with its own stamp: plain text
	}
	rest := line[skipSpace(line, e):]
	if parseText(rest, tc, r) != LineTimed {
		return LineCont
	}
	r.Fields = append(r.Fields, KV{Key: []byte("file"), Val: line[:e]})
	return LineTimed
}

// containsDate reports whether b holds "yyyy-mm-dd" somewhere.
func containsDate(b []byte) bool {
	for i := 0; i+10 <= len(b); i++ {
		if b[i+4] == '-' && b[i+7] == '-' && isDigit(b[i]) && isDigit(b[i+3]) && isDigit(b[i+5]) && isDigit(b[i+6]) && isDigit(b[i+8]) && isDigit(b[i+9]) {
			return true
		}
	}
	return false
}

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
		r.Service = v
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

// parseGlog reads glog/klog: "E0102 15:04:05.000000 1234 file.go:12] msg"
// (level letter I, W, E or F; the year is inferred; thread id and source
// location become fields).
func parseGlog(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 22 || line[5] != ' ' || line[8] != ':' || line[11] != ':' {
		return LineCont
	}
	var lvl string
	switch line[0] {
	case 'I':
		lvl = "INFO"
	case 'W':
		lvl = "WARN"
	case 'E', 'F':
		lvl = "ERROR"
	default:
		return LineCont
	}
	v, ok := stampNums(line, span{1, 2}, span{3, 2}, span{6, 2}, span{9, 2}, span{12, 2})
	if !ok {
		return LineCont
	}
	mo, d, h, mi, s := v[0], v[1], v[2], v[3], v[4]
	i := 14
	frac, i := fraction(line, i)
	ts, ok := tc.noYear(mo, d, h, mi, s, frac)
	if !ok || !afterStamp(line, i) {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	i = skipSpace(line, i)
	if e := digitsEnd(line, i); e > i {
		r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: line[i:e]})
		i = skipSpace(line, e)
	}
	if k := bytes.IndexByte(line[i:], ']'); k > 0 && k <= 128 && bytes.IndexByte(line[i:i+k], ' ') < 0 {
		r.Fields = append(r.Fields, KV{Key: []byte("source"), Val: line[i : i+k]})
		i = skipSpace(line, i+k+1)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// logcatLevel maps Android's priority letters (V D I W E F, A assert).
func logcatLevel(c byte) string {
	switch c {
	case 'V', 'D':
		return "DEBUG"
	case 'I':
		return "INFO"
	case 'W':
		return "WARN"
	case 'E', 'F', 'A':
		return "ERROR"
	}
	return ""
}

// parseLogcat reads Android logcat threadtime, "03-17 16:13:38.811  1702
// 2395 D Tag: msg" (also with a year, logcat -v year): the tag is the
// service, pid and tid are fields.
func parseLogcat(line []byte, tc *TimeCtx, r *Record) LineKind {
	var ts int64
	var i int
	if len(line) >= 10 && line[4] == '-' && line[7] == '-' {
		t, n, ok := isoTime(line, tc.Loc)
		if !ok {
			return LineCont
		}
		ts, i = t, n
	} else {
		if len(line) < 18 || line[2] != '-' || line[5] != ' ' || line[8] != ':' || line[11] != ':' {
			return LineCont
		}
		v, ok := stampNums(line, span{0, 2}, span{3, 2}, span{6, 2}, span{9, 2}, span{12, 2})
		if !ok {
			return LineCont
		}
		mo, d, h, mi, s := v[0], v[1], v[2], v[3], v[4]
		var frac int
		frac, i = fraction(line, 14)
		t, ok := tc.noYear(mo, d, h, mi, s, frac)
		if !ok {
			return LineCont
		}
		ts = t
	}
	// pid, tid, priority letter, "Tag: msg"
	p := skipSpace(line, i)
	pe := digitsEnd(line, p)
	t := skipSpace(line, pe)
	te := digitsEnd(line, t)
	l := skipSpace(line, te)
	if pe == p || te == t || l+2 > len(line) || line[l+1] != ' ' {
		return LineCont
	}
	lvl := logcatLevel(line[l])
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: line[p:pe]}, KV{Key: []byte("tid"), Val: line[t:te]})
	i = l + 2
	if k := bytes.Index(line[i:], []byte(": ")); k >= 0 && k <= 64 {
		r.Service = trimEnd(line[i : i+k])
		i += k + 2
	} else if bytes.HasSuffix(line, []byte(":")) {
		r.Service = trimEnd(line[i : len(line)-1])
		i = len(line)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

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
		ts, n, ok = isoTime(line[i:], tc.Loc)
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
	ts, n, ok := isoTime(line[i:], tc.Loc)
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

// parseRAS reads supercomputer RAS logs, which put an alert tag, a Unix
// epoch, a date and the node before the event's own stamp: BlueGene/L
// "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872
// R02-M1-N0-C:J12-U11 RAS KERNEL INFO msg" (component is the service, the
// level word the level) and Thunderbird "- 1131566461 2005.11.09 dn228 Nov
// 9 12:01:01 dn228/dn228 crond[2915]: msg" (the program is the service).
// The epoch is the time. An alert tag other than "-" is kept as the field
// "alert" and, when the line names no level, makes it ERROR: the tag marks
// the line as an alert.
func parseRAS(line []byte, tc *TimeCtx, r *Record) LineKind {
	te := token(line, 0)
	if te == 0 || te > 32 || te >= len(line) {
		return LineCont
	}
	tag := line[:te]
	es := skipSpace(line, te)
	ee := digitsEnd(line, es)
	if ee-es != 10 || ee >= len(line) || line[ee] != ' ' {
		return LineCont
	}
	ds := ee + 1
	if len(line) < ds+11 || line[ds+4] != '.' || line[ds+7] != '.' || line[ds+10] != ' ' {
		return LineCont
	}
	sec, _ := num(line[es:], 10)
	ns := int64(sec) * 1e9
	ns0 := skipSpace(line, ds+11)
	ne := token(line, ns0)
	if ne == ns0 || ne >= len(line) {
		return LineCont
	}
	r.TS = ns
	r.Fields = append(r.Fields, KV{Key: []byte("node"), Val: line[ns0:ne]})
	if string(tag) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("alert"), Val: tag})
	}
	i := skipSpace(line, ne)
	if _, n, ok := syslogTime(line[i:], tc); ok { // Thunderbird
		i = skipSpace(line, i+n)
		he := token(line, i)
		if j, ok := syslogTag(line, skipSpace(line, he), r); ok {
			i = j
		} else {
			i = skipSpace(line, he)
		}
		if e, lvl, _ := levelWord(line, i); lvl != "" {
			r.Level = lvl
			i = skipSeps(line, e)
		}
	} else { // BlueGene/L: stamp node type component level
		var cols [4][]byte
		for c := range cols {
			e := token(line, i)
			cols[c] = line[i:e]
			i = skipSpace(line, e)
		}
		r.Fields = append(r.Fields, KV{Key: []byte("type"), Val: cols[2]})
		r.Service = cols[3]
		if _, lvl, _ := levelWord(line, i); lvl != "" {
			r.Level = lvl
			i = skipSpace(line, token(line, i))
		}
	}
	if r.Level == "" && string(tag) != "-" {
		r.Level = "ERROR"
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// parseHPC reads the LANL HPC layout "134681 node-246 unix.hw
// state_change.unavailable 1077804742 1 msg": sequence number, node,
// component (the service), state, Unix epoch (the time), flag, message.
func parseHPC(line []byte, tc *TimeCtx, r *Record) LineKind {
	var cols [6][]byte
	i := 0
	for c := range cols {
		e := token(line, i)
		if e == i || e >= len(line) {
			return LineCont
		}
		cols[c] = line[i:e]
		i = skipSpace(line, e)
	}
	flag := bytes.TrimPrefix(cols[5], []byte("-"))
	if digitsEnd(cols[0], 0) != len(cols[0]) || len(cols[4]) != 10 || digitsEnd(cols[4], 0) != 10 || len(flag) == 0 || digitsEnd(flag, 0) != len(flag) {
		return LineCont
	}
	sec, _ := num(cols[4], 10)
	r.TS = int64(sec) * 1e9
	r.Service = cols[2]
	r.Fields = append(r.Fields, KV{Key: []byte("node"), Val: cols[1]}, KV{Key: []byte("state"), Val: cols[3]}, KV{Key: []byte("flag"), Val: cols[5]})
	if e, lvl, _ := levelWord(line, i); lvl != "" {
		r.Level = lvl
		i = skipSeps(line, e)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// hpcShape reports whether a line starts like an entry of the HPC layout
// (a sequence number, then a 10-digit epoch as the fifth column), so a line
// of that shape the layout cannot read is an unplaced entry, never text
// glued to the entry before it.
func hpcShape(line []byte) bool {
	i, c := 0, 0
	for ; c < 5; c++ {
		e := token(line, i)
		if e == i {
			return false
		}
		if c == 0 && digitsEnd(line, i) != e {
			return false
		}
		if c == 4 {
			return e-i == 10 && digitsEnd(line, i) == e
		}
		i = skipSpace(line, e)
	}
	return false
}

// threadWords are words that name a thread, not a service, inside the
// "[…]" of a log4j/logback/JUL line: Tomcat's http-nio-8080-exec-19, a
// pool-1-thread-3, main, an event loop, a scheduler.
var threadWords = [...]string{"thread", "exec", "pool", "worker", "nio", "eventloop", "schedul", "task", "reactor",
	"executor", "dispatcher", "qtp", "grpc", "consumer", "producer", "timer", "async", "http-", "parallel", "elastic", "listener"}

// looksThread reports whether the text of a bracket names a thread: one of
// threadWords, "main", or text with a blank or '|' (a service name has none).
func looksThread(b []byte) bool {
	b = bytes.TrimSpace(b)
	if string(b) == "main" || bytes.ContainsAny(b, " |") {
		return true
	}
	var buf [MaxServiceText]byte
	low := buf[:0]
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	for _, w := range threadWords {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return false
}

// dottedNext reports whether a logger's dotted name (com.shop.Orders,
// c.e.Foo) starts at b[i]: the shape that tells a "[thread] LEVEL logger"
// line from "[service] LEVEL message".
func dottedNext(b []byte, i int) bool {
	e := token(b, i)
	w := b[i:e]
	colon := bytes.HasSuffix(w, []byte(":")) // Hadoop's "org.apache.hadoop.Foo: msg"
	w = bytes.TrimSuffix(w, []byte(":"))
	return len(w) > 2 && bytes.IndexByte(w, '.') > 0 && w[len(w)-1] != '.' && bytes.IndexByte(w, ':') < 0 &&
		(colon || e == len(b) || bytes.HasPrefix(b[e:], []byte(" - ")) || bytes.HasPrefix(b[e:], []byte(" : ")))
}

// springTail reads what Spring Boot writes after the level: "1234 ---
// [app] [thread] [trace] logger : msg" (Boot 3.2+ names the application
// when spring.application.name is set; Boot 2 and 3.0 write only the
// thread). The application is the service, else the logger; the thread is
// a field, never the service. It reports whether the line had that shape.
func springTail(line []byte, i int, r *Record) bool {
	pe := digitsEnd(line, i)
	if pe == i || !bytes.HasPrefix(line[pe:], []byte(" --- ")) {
		return false
	}
	pid := line[i:pe]
	j := pe + len(" --- ")
	var br [3][]byte
	n := 0
	for n < len(br) {
		b, k, ok := bracketed(line, j, MaxServiceText)
		if !ok {
			break
		}
		br[n] = bytes.TrimSpace(b)
		n++
		j = skipSpace(line, k)
	}
	if n == 0 {
		return false
	}
	k := bytes.Index(line[j:], []byte(" : "))
	if k < 0 || k > 2*MaxServiceText {
		return false
	}
	logger := bytes.TrimSpace(line[j : j+k])
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: pid})
	switch n {
	case 1:
		r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: br[0]})
		r.Service = logger
	default:
		r.Service = br[0]
		r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: br[1]}, KV{Key: []byte("logger"), Val: logger})
		if n == 3 && len(br[2]) > 0 {
			r.Fields = append(r.Fields, KV{Key: []byte("trace"), Val: br[2]})
		}
	}
	r.Msg = trimEnd(line[j+k+3:])
	return true
}

// callerShape reports whether b is a source location, "pkg/file.go:42".
func callerShape(b []byte) bool {
	c := bytes.LastIndexByte(b, ':')
	return c > 0 && c+1 < len(b) && digitsEnd(b, c+1) == len(b) && bytes.IndexByte(b[:c], '.') > 0
}

// zapTail reads zap's console encoder after the level (sep is where the
// level ends): tab-separated "[logger<TAB>]caller<TAB>msg[<TAB>{json}]".
// The logger, when named, is the service; the caller is a field.
func zapTail(line []byte, sep int, r *Record) bool {
	if sep >= len(line) || line[sep] != '\t' {
		return false
	}
	rest := line[sep+1:]
	a, after, ok := bytes.Cut(rest, []byte("\t"))
	if !ok {
		return false
	}
	switch {
	case callerShape(a):
		r.Fields = append(r.Fields, KV{Key: []byte("caller"), Val: a})
	default:
		b, after2, ok := bytes.Cut(after, []byte("\t"))
		if !ok || !callerShape(b) || len(a) > 64 {
			return false
		}
		r.Service = a
		r.Fields = append(r.Fields, KV{Key: []byte("caller"), Val: b})
		after = after2
	}
	r.Msg = trimEnd(after)
	return true
}

// rasShape reports whether a line starts like an entry of the RAS layout
// (an alert tag, then a 10-digit epoch), so a line of that shape the layout
// cannot read is an unplaced entry, never glued to the entry before it.
func rasShape(line []byte) bool {
	te := token(line, 0)
	if te == 0 || te > 32 {
		return false
	}
	es := skipSpace(line, te)
	ee := digitsEnd(line, es)
	return ee-es == 10 && (ee == len(line) || line[ee] == ' ')
}
