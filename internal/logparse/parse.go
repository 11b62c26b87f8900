package logparse

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Bounds the parsers keep to, which an entry shown to the model keeps too.
const (
	// MaxFields is how many extra fields of one record are kept.
	MaxFields = 8
	// MaxServiceText bounds a service name, in bytes.
	MaxServiceText = 128
)

// KV is one extra field of a log line, kept for the entry's bounded fields.
// Num marks a value the layout read as a number (an access line's status,
// bytes and timings), which the entry shows as a JSON number.
type KV struct {
	Key, Val []byte
	Num      bool
}

// Record is one parsed header line. Its byte slices point into the line (or
// into fresh buffers for unescaped strings) and are valid until the next parse.
type Record struct {
	TS      int64
	Level   string
	Service []byte
	Msg     []byte
	Fields  []KV
	// Pattern, when set, is the grouping key the layout gives the line in
	// place of its message's template: an access line's "METHOD route status".
	Pattern []byte
	// attached marks a stamped line that carries more of the entry before
	// it (PostgreSQL's DETAIL, HINT, STATEMENT): a continuation, never an
	// entry of its own.
	attached bool
}

// nameField keeps a name a layout reads that is no service by convention
// (a logger, class, component, module, tag, program of a dataset) as the
// field key: the service is the entry's own service field, else the
// source's service key, never a guess (see ServiceKeys).
func (r *Record) nameField(key string, v []byte) {
	if len(v) > 0 {
		r.Fields = append(r.Fields, KV{Key: []byte(key), Val: v})
	}
}

func (r *Record) reset() {
	r.TS, r.Level, r.Service, r.Msg, r.Pattern, r.attached = 0, "", nil, nil, nil, false
	r.Fields = r.Fields[:0]
}

// LineKind is what one line is to the entry structure of a file.
type LineKind uint8

const (
	// LineCont continues the previous entry (a stack trace line, text that
	// is no record of the format).
	LineCont LineKind = iota
	// LineTimed starts an entry with a readable time.
	LineTimed
	// LineUntimed starts an entry of its own whose time is missing or cannot
	// be read (a JSON object without a parseable time, a logfmt line whose
	// time field is malformed): never joined to the previous entry, never
	// given its time, only counted.
	LineUntimed
)

// maxLevelWord is the longest level spelling normLevel knows ("informational").
const maxLevelWord = 13

// normLevel maps the common spellings of a severity to ERROR, WARN, INFO or
// DEBUG ("" when the word is not a level): any case, single letters (glog,
// logcat), JUL and syslog names, numbered debug levels (DEBUG2) and the
// pino/bunyan numbers 10..60.
func normLevel(b []byte) string {
	if len(b) == 0 || len(b) > maxLevelWord {
		return ""
	}
	var buf [maxLevelWord]byte
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	w := buf[:len(b)]
	if n := len(w); n > 5 && isDigit(w[n-1]) && string(w[:5]) == "debug" {
		return "DEBUG" // DEBUG1..DEBUG5 (PostgreSQL, syslog-ng)
	}
	if n := len(w); n == 2 && w[0] == 'd' && w[1] >= '1' && w[1] <= '5' {
		return "DEBUG" // MongoDB D1..D5
	}
	switch string(w) {
	case "error", "err", "eror", "erro", "e", "fatal", "f", "failure", "crit", "critical", "c", "panic", "dpanic", "alert", "emerg", "emergency", "severe", "50", "60":
		return "ERROR"
	case "warn", "warning", "wrn", "w", "40":
		return "WARN"
	case "info", "inf", "information", "informational", "notice", "note", "n", "i", "30":
		return "INFO"
	case "debug", "dbg", "debg", "trace", "trc", "d", "v", "verbose", "fine", "finer", "finest", "10", "20":
		return "DEBUG"
	}
	return ""
}

// syslogLevel maps a syslog / journald numeric priority (0 emerg .. 7
// debug): 0-3 ERROR, 4 WARN, 5-6 INFO, 7 DEBUG.
func syslogLevel(b []byte) string {
	if len(b) != 1 || b[0] < '0' || b[0] > '7' {
		return ""
	}
	switch p := b[0] - '0'; {
	case p <= 3:
		return "ERROR"
	case p == 4:
		return "WARN"
	case p <= 6:
		return "INFO"
	}
	return "DEBUG"
}

// otelLevel maps an OpenTelemetry severityNumber (1-4 TRACE, 5-8 DEBUG,
// 9-12 INFO, 13-16 WARN, 17-24 ERROR and FATAL).
func otelLevel(b []byte) string {
	n, err := strconv.Atoi(string(b))
	switch {
	case err != nil || n < 1 || n > 24:
		return ""
	case n <= 8:
		return "DEBUG"
	case n <= 12:
		return "INFO"
	case n <= 16:
		return "WARN"
	}
	return "ERROR"
}

// statusLevel maps an HTTP status to a level, the way access logs are read:
// 5xx ERROR (the server failed), 4xx WARN (the client was refused), any
// other status INFO; "" when b is no status.
func statusLevel(b []byte) string {
	n, ok := num(b, 3)
	if !ok || len(b) != 3 || n < 100 || n > 599 {
		return ""
	}
	switch {
	case n >= 500:
		return "ERROR"
	case n >= 400:
		return "WARN"
	}
	return "INFO"
}

// Key roles. A lower priority number wins when a line has several spellings.
const (
	roleField = iota
	roleTime
	roleLevel
	roleService
	roleMsg
	// roleStatus is an HTTP status, the level when no level member exists.
	roleStatus
	// roleNanos is the nanoseconds of a log4j2 instant.epochSecond.
	roleNanos
	// roleAttrs is an OTLP attribute array that may hold service.name.
	roleAttrs
	// roleHint is a member that tells the level in its writer's own
	// spelling, kept as a field: MongoDB's "s" (its "t.$date" tells the
	// writer; its "c", the component, is a field like pino's "name").
	roleHint
)

// Priorities of level spellings whose values need their own mapping.
const (
	priLevelSyslog = 5 // journald PRIORITY
	priLevelOTel   = 6 // OTLP severityNumber
	priTimeInstant = 9 // log4j2 instant.epochSecond (+ nanoOfSecond)
)

func keyRole(k []byte) (role, pri int) {
	switch string(k) {
	case "ts", "@t":
		return roleTime, 0
	case "t.$date":
		return roleTime, 1
	case "time":
		return roleTime, 1
	case "timestamp":
		return roleTime, 2
	case "@timestamp":
		return roleTime, 3
	case "t":
		return roleTime, 4
	case "_SOURCE_REALTIME_TIMESTAMP":
		return roleTime, 5
	case "__REALTIME_TIMESTAMP":
		return roleTime, 6
	case "timeUnixNano":
		return roleTime, 7
	case "EdgeStartTimestamp":
		return roleTime, 8
	case "instant.epochSecond":
		return roleTime, priTimeInstant
	case "timeMillis":
		return roleTime, 10
	case "observedTimeUnixNano":
		return roleTime, 11
	case "instant.nanoOfSecond":
		return roleNanos, 0
	case "level":
		return roleLevel, 0
	case "lvl":
		return roleLevel, 1
	case "severity":
		return roleLevel, 2
	case "log.level":
		return roleLevel, 3
	case "severityText", "levelname", "@l":
		return roleLevel, 4
	case "PRIORITY":
		return roleLevel, priLevelSyslog
	case "severityNumber":
		return roleLevel, priLevelOTel
	case "status", "EdgeResponseStatus", "http.response.status_code", "DownstreamStatus":
		return roleStatus, 0
	case "s":
		return roleHint, 0
	case "service":
		return roleService, 0
	case "service.name":
		return roleService, 1
	case "resource.service.name":
		return roleService, 2
	case "app", "application":
		return roleService, 3
	case "kubernetes.labels.app", "kubernetes.labels.app.kubernetes.io/name", "kubernetes.labels.app_kubernetes_io/name":
		return roleService, 4
	case "SYSLOG_IDENTIFIER":
		return roleService, 6
	case "_SYSTEMD_UNIT":
		return roleService, 7
	case "resource.attributes":
		return roleAttrs, 0
	case "msg", "@m":
		return roleMsg, 0
	case "message":
		return roleMsg, 1
	case "log":
		return roleMsg, 2
	case "text":
		return roleMsg, 3
	case "MESSAGE":
		return roleMsg, 4
	case "body", "body.stringValue":
		return roleMsg, 5
	case "ClientRequestURI":
		return roleMsg, 6
	case "@mt":
		return roleMsg, 7
	}
	return roleField, 0
}

// assigner collects the recognised members of one line by priority.
type assigner struct {
	r                       *Record
	timeV                   []byte
	writer                  uint8 // who wrote the line, as its time member's key tells
	timeP, levP, svcP, msgP int
	levelV, statusV, attrsV []byte
	nanos                   []byte
	// the writer's hint (roleHint): MongoDB's severity
	mongoS []byte
}

func newAssigner(r *Record) assigner {
	return assigner{r: r, timeP: 99, levP: 99, svcP: 99, msgP: 99}
}

// add assigns the member k: v to its role, else keeps it as a field (num:
// the writer wrote it as a number).
func (a *assigner) add(k, v []byte, num bool) {
	role, pri := keyRole(k)
	switch role {
	case roleTime:
		if pri < a.timeP {
			a.timeP, a.timeV, a.writer = pri, v, writerOf(k)
			return
		}
	case roleLevel:
		if pri < a.levP {
			a.levP, a.levelV = pri, v
			return
		}
	case roleService:
		if pri < a.svcP {
			a.svcP, a.r.Service = pri, v
			return
		}
	case roleMsg:
		if pri < a.msgP {
			a.msgP, a.r.Msg = pri, v
			return
		}
	case roleStatus:
		a.statusV = v
	case roleNanos:
		a.nanos = v
		return
	case roleAttrs:
		a.attrsV = v
		return
	case roleHint:
		if string(k) == "s" {
			a.mongoS = v
		}
	}
	a.r.Fields = append(a.r.Fields, KV{Key: k, Val: v, Num: num})
}

// finish reads the time and level of a parsed record. A record whose time
// member is missing is untimed when the line is a record on its own (a whole
// JSON object), else a continuation; a time member that does not parse makes
// the record untimed, never a continuation that would borrow the previous
// entry's time. Without a level member an HTTP status gives the level; without
// a service member an OTLP resource attribute service.name gives it.
func (a *assigner) finish(tc *TimeCtx, wholeRecord bool) LineKind {
	kind := LineUntimed
	if a.timeP == 99 {
		if !wholeRecord {
			return LineCont
		}
	} else if ts, ok := valueTime(a.timeV, tc); ok {
		if a.timeP == priTimeInstant && len(a.nanos) > 0 {
			if n, err := strconv.ParseInt(string(a.nanos), 10, 64); err == nil && n >= 0 && n < 1e9 {
				ts += n
			}
		}
		a.r.TS = ts
		kind = LineTimed
	}
	mongo := a.writer == writerMongo
	switch {
	case a.levP == priLevelSyslog:
		a.r.Level = syslogLevel(a.levelV)
	case a.levP == priLevelOTel:
		a.r.Level = otelLevel(a.levelV)
	case a.levP != 99:
		a.r.Level = normLevel(a.levelV)
	case mongo && a.mongoS != nil:
		a.r.Level = normLevel(a.mongoS)
	case a.writer == writerCLEF:
		a.r.Level = "INFO" // Serilog CLEF: a missing @l is Information
	}
	// an access record's status raises the level it was written at
	// (Traefik and Caddy write every request at one level)
	if sl := statusLevel(a.statusV); sl != "" && levelRank(sl) > levelRank(a.r.Level) && (a.levP == 99 || a.r.Level == "INFO") {
		a.r.Level = sl
	}
	if a.levP != 99 && a.r.Level == "" {
		a.r.Fields = append(a.r.Fields, KV{Key: []byte("level"), Val: a.levelV})
	}
	switch {
	case a.svcP != 99:
	case a.attrsV != nil:
		a.r.Service = otlpServiceName(a.attrsV)
	}
	return kind
}

// Writers a time member's key names (assigner.writer).
const (
	writerAny = iota
	writerCLEF
	writerMongo
)

// writerOf tells Serilog's CLEF ("@t") and MongoDB ("t.$date") apart by
// the key of their time member.
func writerOf(k []byte) uint8 {
	switch string(k) {
	case "@t":
		return writerCLEF
	case "t.$date":
		return writerMongo
	}
	return writerAny
}

// levelRank orders the canonical levels ("" lowest).
func levelRank(l string) int {
	switch l {
	case "ERROR":
		return 4
	case "WARN":
		return 3
	case "INFO":
		return 2
	case "DEBUG":
		return 1
	}
	return 0
}

// otlpServiceName finds service.name in an OTLP/JSON attribute array
// ([{"key":"service.name","value":{"stringValue":"checkout"}}, ...]).
func otlpServiceName(attrs []byte) []byte {
	k := bytes.Index(attrs, []byte(`"service.name"`))
	if k < 0 {
		return nil
	}
	rest := attrs[k:]
	v := bytes.Index(rest, []byte(`"stringValue"`))
	if v < 0 {
		return nil
	}
	i := v + len(`"stringValue"`)
	i = skipSpace(rest, i)
	if i >= len(rest) || rest[i] != ':' {
		return nil
	}
	i = skipSpace(rest, i+1)
	if i >= len(rest) || rest[i] != '"' {
		return nil
	}
	s, _, ok := jsonString(rest, i)
	if !ok {
		return nil
	}
	return s
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// parseJSON reads one JSON object per line. Nested objects are flattened with
// dotted keys (so {"log":{"level":"error"}} is log.level); arrays stay raw;
// a number member is kept as a number (KV.Num). An object the line ends
// inside (a line longer than MaxLineBytes cut to its head, or one its
// writer tore) is still a record of its own, never a continuation of the
// entry before it, when its head read a time member or is MaxLineBytes
// long: read from the members complete before the cut (timed when its time
// member is among them, else untimed), in the order they were written.
func parseJSON(line []byte, tc *TimeCtx, r *Record) LineKind {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return LineCont
	}
	a := newAssigner(r)
	if end, ok := jsonObject(line, i, nil, 0, &a); !ok {
		if end < len(line) || a.timeP == 99 && len(line) < MaxLineBytes {
			return LineCont // malformed, or a short torn line with no time
		}
	}
	return a.finish(tc, true)
}

// jsonObject walks the object at b[i] ('{') and returns the index after it;
// when the object is malformed, ok is false and the index is where the walk
// stopped: len(b) when b ended inside the object (its members complete
// before the end were added to a).
func jsonObject(b []byte, i int, prefix []byte, depth int, a *assigner) (int, bool) {
	i++ // {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		key, next, ok := jsonString(b, i)
		if !ok {
			return len(b), false
		}
		if len(prefix) > 0 {
			key = append(append(append([]byte{}, prefix...), '.'), key...)
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			v, next, ok := jsonString(b, i)
			if !ok {
				return len(b), false
			}
			a.add(key, v, false)
			i = next
		case c == '{' && depth < 3:
			next, ok := jsonObject(b, i, key, depth+1, a)
			if !ok {
				return next, false
			}
			i = next
		case c == '{' || c == '[':
			end, ok := jsonSkip(b, i)
			if !ok {
				return len(b), false
			}
			a.add(key, b[i:end], false)
			i = end
		default: // number, true, false, null
			start := i
			for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' {
				i++
			}
			if i == start || i >= len(b) {
				return i, false // malformed, or cut before its end
			}
			if v := b[start:i]; string(v) != "null" {
				a.add(key, v, c == '-' || c >= '0' && c <= '9')
			}
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] == '}' {
			return i + 1, true
		}
		return i, false
	}
}

// jsonString returns the decoded string at b[i] ('"') and the index after it.
func jsonString(b []byte, i int) ([]byte, int, bool) {
	j := i + 1
	escaped := false
	for j < len(b) {
		switch b[j] {
		case '\\':
			escaped = true
			j += 2
			continue
		case '"':
			if !escaped {
				return b[i+1 : j], j + 1, true
			}
			var s string
			if err := json.Unmarshal(b[i:j+1], &s); err != nil {
				// keep the raw text rather than drop the line
				return b[i+1 : j], j + 1, true
			}
			return []byte(s), j + 1, true
		}
		j++
	}
	return nil, 0, false
}

// jsonSkip returns the index after the array or object starting at b[i].
func jsonSkip(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			_, next, ok := jsonString(b, i)
			if !ok {
				return 0, false
			}
			i = next
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return 0, false
}

// parseLogfmt reads key=value pairs; values may be "quoted" with escapes.
func parseLogfmt(line []byte, tc *TimeCtx, r *Record) LineKind {
	a, ok := logfmtRecord(line, r)
	if !ok {
		return LineCont
	}
	return a.finish(tc, false)
}

// logfmtRecord collects the key=value pairs of line into an assigner over
// r; ok is false when the line holds none.
func logfmtRecord(line []byte, r *Record) (assigner, bool) {
	a := newAssigner(r)
	i := 0
	pairs := 0
	for {
		i = skipSpace(line, i)
		if i >= len(line) {
			break
		}
		ks := i
		for i < len(line) && line[i] != '=' && line[i] != ' ' && line[i] != '\t' && line[i] != '"' {
			i++
		}
		key := line[ks:i]
		if i >= len(line) || line[i] != '=' || len(key) == 0 {
			// a bare word: skip it
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				i++
			}
			continue
		}
		i++ // =
		var val []byte
		if i < len(line) && line[i] == '"' {
			j := i + 1
			esc := false
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					esc = true
					j++
				}
				j++
			}
			if j >= len(line) {
				val = line[i+1:]
				i = len(line)
			} else {
				val = line[i+1 : j]
				if esc {
					if s, err := strconv.Unquote(string(line[i : j+1])); err == nil {
						val = []byte(s)
					}
				}
				i = j + 1
			}
		} else {
			vs := i
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				i++
			}
			val = line[vs:i]
		}
		pairs++
		a.add(key, val, false)
	}
	return a, pairs > 0
}
