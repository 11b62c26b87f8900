package logparse

import (
	"bytes"
	"time"
)

// The layouts of everyday servers, as their software writes them by
// default: each is recognised by the shape around its stamp, so that a line
// of one is never read by the general text layout with its level missed
// (PostgreSQL's "UTC [pid] ERROR:", Lambda's tab-separated request id) or
// its thread taken for a service.

// zoneAfter reads what may follow a stamp without its own offset: " +0000"
// or " -07:00" (gunicorn, journalctl), " UTC" or " GMT" (PostgreSQL %m/%t),
// or another zone abbreviation (" CET", " EST": the source's zone stands for
// it). It returns the offset to subtract from a stamp read in UTC, whether
// the zone was numeric or UTC (utc), and the bytes it used (0 when none).
func zoneAfter(b []byte, i int) (off int64, utc bool, n int) {
	if i+1 >= len(b) || b[i] != ' ' {
		return 0, false, 0
	}
	j := i + 1
	if c := b[j]; c == '+' || c == '-' {
		oh, ok := num(b[j+1:], 2)
		if !ok {
			return 0, false, 0
		}
		k := j + 3
		om := 0
		if k < len(b) && b[k] == ':' {
			k++
		}
		if m, ok := num(b[k:], 2); ok {
			om, k = m, k+2
		}
		if k < len(b) && isDigit(b[k]) {
			return 0, false, 0
		}
		off = int64((oh*60+om)*60) * 1e9
		if c == '-' {
			off = -off
		}
		return off, true, k - i
	}
	k := j
	for k < len(b) && k-j < 6 && b[k] >= 'A' && b[k] <= 'Z' {
		k++
	}
	if k-j < 3 || (k < len(b) && b[k] != ' ' && b[k] != ']') {
		return 0, false, 0
	}
	switch string(b[j:k]) {
	case "UTC", "GMT", "UCT":
		return 0, true, k - i
	}
	return 0, false, k - i
}

// isoZoned reads an ISO stamp that may be followed by a blank and a zone
// (zoneAfter): a stamp that carries its own offset keeps it, a numeric or
// UTC zone after it is applied, an abbreviation leaves the source's zone.
func isoZoned(b []byte, tc *TimeCtx) (int64, int, bool) {
	ts, n, ok := isoTime(b, tc)
	if !ok {
		return 0, 0, false
	}
	if hasZone(b[:n]) {
		return ts, n, true
	}
	off, utc, zn := zoneAfter(b, n)
	if zn == 0 {
		return ts, n, true
	}
	tc.Fold = Fold{} // the stamp's own zone places it: no DST reading
	if utc {
		u, _, _ := isoTime(b[:n], &TimeCtx{Loc: time.UTC})
		return u - off, n + zn, true
	}
	return ts, n + zn, true
}

// bracketed returns the text inside "[…]" at b[i] (at most max bytes) and
// the index after the ']'; ok is false when there is none.
func bracketed(b []byte, i, max int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '[' {
		return nil, i, false
	}
	j := closeBracket(b, i, max)
	if j < 0 {
		return nil, i, false
	}
	return b[i+1 : j], j + 1, true
}

// closeBracket is the index of the "]" that closes the "[" at b[i], within
// max bytes of what it encloses, brackets inside it nested
// ("[QuorumPeer[myid=1]/…:FastLeaderElection@774]" is one name); -1 when
// there is none.
func closeBracket(b []byte, i, max int) int {
	depth := 0
	for j := i + 1; j < min(len(b), i+2+max); j++ {
		switch b[j] {
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// parseGunicorn reads gunicorn's error log: "[2026-11-20 09:00:00 +0000]
// [31] [ERROR] msg" (the pid a field).
func parseGunicorn(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 22 || line[0] != '[' {
		return LineCont
	}
	ts, n, ok := isoZoned(line[1:], tc)
	if !ok || 1+n >= len(line) || line[1+n] != ']' {
		return LineCont
	}
	i := skipSpace(line, n+2)
	pid, i, ok := bracketed(line, i, 12)
	if !ok || len(pid) == 0 || digitsEnd(pid, 0) != len(pid) {
		return LineCont
	}
	i = skipSpace(line, i)
	lv, i, ok := bracketed(line, i, 12)
	if !ok {
		return LineCont
	}
	lvl := normLevel(lv)
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: pid})
	r.Msg = trimEnd(line[skipSpace(line, i):])
	return LineTimed
}

// parseRubyLogger reads Ruby's Logger (Rails): "E, [2026-11-20T09:00:00.123456
// #1234] ERROR -- progname: msg". The progname, when given, is the service.
func parseRubyLogger(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 30 || line[1] != ',' || line[2] != ' ' || line[3] != '[' {
		return LineCont
	}
	ts, n, ok := isoTime(line[4:], tc)
	i := 4 + n
	if !ok || i+2 >= len(line) || line[i] != ' ' || line[i+1] != '#' {
		return LineCont
	}
	pe := digitsEnd(line, i+2)
	if pe == i+2 || pe >= len(line) || line[pe] != ']' {
		return LineCont
	}
	pid := line[i+2 : pe]
	i = skipSpace(line, pe+1)
	we := token(line, i)
	lvl := normLevel(line[i:we])
	switch {
	case string(line[i:we]) == "ANY" || string(line[i:we]) == "UNKNOWN":
		lvl = "ERROR" // Logger#unknown: a message that must always be logged
	case lvl == "":
		return LineCont
	}
	i = skipSpace(line, we)
	if !bytes.HasPrefix(line[i:], []byte("-- ")) {
		return LineCont
	}
	i += 3
	if k := bytes.Index(line[i:], []byte(": ")); k > 0 && k <= 64 {
		r.nameField("progname", line[i:i+k])
		i += k + 2
	} else if k == 0 {
		i += 2
	} else if bytes.HasPrefix(line[i:], []byte(":")) {
		i++
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: pid})
	r.Msg = trimEnd(line[skipSpace(line, i):])
	return LineTimed
}

// pgLevel maps PostgreSQL's severities; attached reports the lines that
// carry more of the message before them (DETAIL, HINT, STATEMENT, …).
func pgLevel(w []byte) (lvl string, attached bool) {
	switch string(w) {
	case "ERROR", "FATAL", "PANIC":
		return "ERROR", false
	case "WARNING":
		return "WARN", false
	case "LOG", "INFO", "NOTICE":
		return "INFO", false
	case "DEBUG", "DEBUG1", "DEBUG2", "DEBUG3", "DEBUG4", "DEBUG5":
		return "DEBUG", false
	case "DETAIL", "HINT", "STATEMENT", "CONTEXT", "QUERY", "LOCATION":
		return "", true
	}
	return "", false
}

// parsePostgres reads PostgreSQL's stderr log with the default prefix
// "%m [%p] " ("2026-11-20 09:00:00.123 UTC [1234] ERROR:  msg"), "%t [%p] "
// (no milliseconds) and Debian's "%m [%p] %q%u@%d " (user@db before the
// severity). DETAIL, HINT, STATEMENT, CONTEXT, QUERY and LOCATION lines
// belong to the message before them and are joined to its entry.
func parsePostgres(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 25 || line[10] != ' ' {
		return LineCont
	}
	ts, n, ok := isoZoned(line, tc)
	if !ok || n >= len(line) || line[n] != ' ' {
		return LineCont
	}
	i := n + 1
	pid, i, ok := bracketed(line, i, 12)
	if !ok || len(pid) == 0 || digitsEnd(pid, 0) != len(pid) {
		return LineCont
	}
	i = skipSpace(line, i)
	var user, db []byte
	if e := token(line, i); e > i && line[e-1] != ':' {
		if at := bytes.IndexByte(line[i:e], '@'); at >= 0 {
			user, db = line[i:i+at], line[i+at+1:e]
			i = skipSpace(line, e)
		}
	}
	k := bytes.Index(line[i:min(len(line), i+12)], []byte(": "))
	if k <= 0 {
		return LineCont
	}
	lvl, attached := pgLevel(line[i : i+k])
	if attached {
		r.attached = true
		return LineCont
	}
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: pid})
	if len(user) > 0 && string(user) != "[unknown]" {
		r.Fields = append(r.Fields, KV{Key: []byte("user"), Val: user})
	}
	if len(db) > 0 && string(db) != "[unknown]" {
		r.Fields = append(r.Fields, KV{Key: []byte("db"), Val: db})
	}
	if string(line[i:i+k]) != r.Level {
		r.Fields = append(r.Fields, KV{Key: []byte("severity"), Val: line[i : i+k]})
	}
	r.Msg = trimEnd(line[skipSpace(line, i+k+2):])
	return LineTimed
}

// redisLevel maps Redis's level marks: '.' debug, '-' verbose, '*' notice,
// '#' warning (Redis has no error level: its failures are written '#').
func redisLevel(c byte) string {
	switch c {
	case '.', '-':
		return "DEBUG"
	case '*':
		return "INFO"
	case '#':
		return "WARN"
	}
	return ""
}

// parseRedis reads Redis 3+: "1:M 20 Nov 2026 09:00:00.123 # msg" (pid,
// role M/S/C/X, a day-month-year stamp, the level mark); before Redis 4
// the stamp has no year ("10031:M 07 Sep 10:54:04.957 # …"), inferred.
func parseRedis(line []byte, tc *TimeCtx, r *Record) LineKind {
	pe := digitsEnd(line, 0)
	if pe == 0 || pe+3 >= len(line) || line[pe] != ':' || line[pe+2] != ' ' {
		return LineCont
	}
	role := line[pe+1]
	switch role {
	case 'M', 'S', 'C', 'X':
	default:
		return LineCont
	}
	b := line[pe+3:]
	// "20 Nov 2026 09:00:00.123", before Redis 4 "20 Nov 09:00:00.123"
	var ts int64
	var j int
	switch {
	case len(b) >= 20 && b[2] == ' ' && b[6] == ' ' && b[11] == ' ' && b[14] == ':' && b[17] == ':':
		d, ok1 := num(b, 2)
		mo := monthAt(b[3:])
		y, ok2 := num(b[7:], 4)
		h, ok3 := num(b[12:], 2)
		mi, ok4 := num(b[15:], 2)
		s, ok5 := num(b[18:], 2)
		if mo == 0 || !(ok1 && ok2 && ok3 && ok4 && ok5) {
			return LineCont
		}
		var frac int
		frac, j = fraction(b, 20)
		t, ok := mkTime(y, mo, d, h, mi, s, frac, tc)
		if !ok {
			return LineCont
		}
		ts = t
	case len(b) >= 15 && b[2] == ' ' && b[6] == ' ' && b[9] == ':' && b[12] == ':':
		d, ok1 := num(b, 2)
		mo := monthAt(b[3:])
		h, ok3 := num(b[7:], 2)
		mi, ok4 := num(b[10:], 2)
		s, ok5 := num(b[13:], 2)
		if mo == 0 || !(ok1 && ok3 && ok4 && ok5) {
			return LineCont
		}
		var frac int
		frac, j = fraction(b, 15)
		t, ok := tc.noYear(mo, d, h, mi, s, frac)
		if !ok {
			return LineCont
		}
		ts = t
	default:
		return LineCont
	}
	ok := true
	if !ok || j+2 >= len(b) || b[j] != ' ' || b[j+2] != ' ' {
		return LineCont
	}
	lvl := redisLevel(b[j+1])
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: line[:pe]}, KV{Key: []byte("role"), Val: line[pe+1 : pe+2]})
	r.Msg = trimEnd(b[j+3:])
	return LineTimed
}

// parseElasticsearch reads Elasticsearch's log4j2 pattern
// "[2026-11-20T09:00:00,123][ERROR][o.e.b.Bootstrap          ] [node-1] msg":
// the logger is the service, the node a field.
func parseElasticsearch(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 30 || line[0] != '[' {
		return LineCont
	}
	ts, n, ok := isoTime(line[1:], tc)
	if !ok || 1+n >= len(line) || line[1+n] != ']' {
		return LineCont
	}
	lv, i, ok := bracketed(line, n+2, 8)
	if !ok {
		return LineCont
	}
	lvl := normLevel(bytes.TrimSpace(lv))
	if lvl == "" {
		return LineCont
	}
	logger, i, ok := bracketed(line, i, MaxServiceText)
	if !ok {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.nameField("logger", bytes.TrimSpace(logger))
	i = skipSpace(line, i)
	if node, j, ok := bracketed(line, i, 64); ok && bytes.IndexByte(node, ' ') < 0 {
		r.Fields = append(r.Fields, KV{Key: []byte("node"), Val: node})
		i = skipSpace(line, j)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// parseLambda reads AWS Lambda's tab-separated lines as CloudWatch keeps
// them: Node.js "2026-11-20T09:00:00.123Z<TAB>request-id<TAB>ERROR<TAB>msg"
// and Python "[ERROR]<TAB>2026-11-20T09:00:00.123Z<TAB>request-id<TAB>msg".
// The request id is the field request_id. Lambda's own START, END and
// REPORT lines carry no stamp and continue the entry before them.
func parseLambda(line []byte, tc *TimeCtx, r *Record) LineKind {
	var lvl string
	i := 0
	if lv, j, ok := bracketed(line, 0, 10); ok && j < len(line) && line[j] == '\t' {
		if lvl = normLevel(lv); lvl == "" {
			return LineCont
		}
		i = j + 1
	}
	ts, n, ok := isoTime(line[i:], tc)
	if !ok || !hasZone(line[i:i+n]) || i+n >= len(line) || line[i+n] != '\t' {
		return LineCont
	}
	i += n + 1
	k := bytes.IndexByte(line[i:], '\t')
	if k <= 0 || k > 64 {
		return LineCont
	}
	id := line[i : i+k]
	i += k + 1
	if lvl == "" {
		k = bytes.IndexByte(line[i:], '\t')
		if k <= 0 {
			return LineCont
		}
		if lvl = normLevel(line[i : i+k]); lvl == "" {
			return LineCont
		}
		i += k + 1
	}
	r.TS, r.Level = ts, lvl
	if string(id) != "undefined" {
		r.Fields = append(r.Fields, KV{Key: []byte("request_id"), Val: id})
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// quoted returns the text of the "…" at b[i] and the index after it.
func quoted(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	k := bytes.IndexByte(b[i+1:], '"')
	if k < 0 {
		return nil, i, false
	}
	return b[i+1 : i+1+k], i + k + 2, true
}

// parseEnvoy reads Envoy's default access log: `[2016-04-15T20:17:00.310Z]
// "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28"
// "nsq2http" "cc21d9b0-…" "locations" "tcp://10.0.2.1:80"`. The level comes
// from the status; the authority is the service; method, route, status,
// bytes, the response flags, duration and upstream time are fields.
func parseEnvoy(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 40 || line[0] != '[' {
		return LineCont
	}
	ts, n, ok := isoTime(line[1:], tc)
	if !ok || 1+n+2 >= len(line) || line[1+n] != ']' || line[2+n] != ' ' || line[3+n] != '"' {
		return LineCont
	}
	req, i, ok := quoted(line, 3+n)
	if !ok {
		return LineCont
	}
	var cols [6][]byte // status, flags, bytes received, bytes sent, duration, upstream time
	for c := range cols {
		i = skipSpace(line, i)
		e := token(line, i)
		if e == i {
			return LineCont
		}
		cols[c] = line[i:e]
		i = e
	}
	if string(cols[0]) != "0" && statusLevel(cols[0]) == "" {
		return LineCont
	}
	r.TS = ts
	r.Level = statusLevel(cols[0])
	if r.Level == "" { // 0: the client went away before any response
		r.Level = "WARN"
	}
	var qs [5][]byte // x-forwarded-for, user agent, request id, authority, upstream host
	for c := range qs {
		i = skipSpace(line, i)
		v, j, ok := quoted(line, i)
		if !ok {
			break
		}
		qs[c], i = v, j
	}
	if a := qs[3]; len(a) > 0 && string(a) != "-" {
		r.nameField("authority", a)
	}
	method, route := requestParts(req)
	r.Pattern = accessPattern(method, route, cols[0])
	addRequest(r, method, route, cols[0], cols[3])
	if string(cols[1]) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("flags"), Val: cols[1]})
	}
	addNumber(r, []byte("duration_ms"), cols[4])
	addNumber(r, []byte("upstream_ms"), cols[5])
	if u := qs[4]; len(u) > 0 && string(u) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("upstream"), Val: u})
	}
	r.Msg = trimEnd(line[3+n : min(len(line), i)])
	return LineTimed
}

// mysqlLevel maps MySQL 8's bracketed priorities.
func mysqlLevel(w []byte) string {
	switch string(w) {
	case "ERROR":
		return "ERROR"
	case "Warning":
		return "WARN"
	case "Note", "System":
		return "INFO"
	}
	return ""
}

// parseMySQL reads the MySQL 8 error log, "2026-11-20T09:00:00.123456Z 0
// [ERROR] [MY-010119] [Server] msg" (5.7 without the code and subsystem):
// the subsystem is the service, the error code and thread id are fields.
func parseMySQL(line []byte, tc *TimeCtx, r *Record) LineKind {
	ts, n, ok := isoTime(line, tc)
	if !ok || n >= len(line) || line[n] != ' ' {
		return LineCont
	}
	i := n + 1
	te := digitsEnd(line, i)
	if te == i || te >= len(line) || line[te] != ' ' {
		return LineCont
	}
	thread := line[i:te]
	lv, i, ok := bracketed(line, te+1, 8)
	if !ok {
		return LineCont
	}
	lvl := mysqlLevel(lv)
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: thread})
	i = skipSpace(line, i)
	if code, j, ok := bracketed(line, i, 16); ok && bytes.HasPrefix(code, []byte("MY-")) {
		r.Fields = append(r.Fields, KV{Key: []byte("code"), Val: code})
		i = skipSpace(line, j)
		if sub, j, ok := bracketed(line, i, 32); ok {
			r.nameField("subsystem", sub)
			i = skipSpace(line, j)
		}
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}
