package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// format is a log line syntax; auto is resolved per file by detectFormat.
type format uint8

const (
	fmtAuto format = iota
	fmtJSON
	fmtLogfmt
	fmtText
	// fmtCustom reads lines with the source's own layout (custom.go).
	fmtCustom
)

func (f format) String() string {
	switch f {
	case fmtJSON:
		return "json"
	case fmtLogfmt:
		return "logfmt"
	case fmtText:
		return "text"
	case fmtCustom:
		return "custom"
	}
	return "auto"
}

// parseFormat maps a configured format name to a format.
func parseFormat(s string) (format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return fmtAuto, nil
	case "json", "jsonl", "ndjson":
		return fmtJSON, nil
	case "logfmt":
		return fmtLogfmt, nil
	case "text", "plain":
		return fmtText, nil
	case "custom":
		return fmtCustom, nil
	}
	return 0, fmt.Errorf("unknown log format %q: use json, logfmt, text, custom or auto", s)
}

// kv is one extra field of a log line, kept for the entry's bounded fields.
type kv struct{ key, val []byte }

// record is one parsed header line. Its byte slices point into the line (or
// into fresh buffers for unescaped strings) and are valid until the next parse.
type record struct {
	ts      int64
	level   string
	service []byte
	msg     []byte
	fields  []kv
}

func (r *record) reset() {
	r.ts, r.level, r.service, r.msg = 0, "", nil, nil
	r.fields = r.fields[:0]
}

// lineKind is what one line is to the entry structure of a file.
type lineKind uint8

const (
	// lineCont continues the previous entry (a stack trace line, text that
	// is no record of the format).
	lineCont lineKind = iota
	// lineTimed starts an entry with a readable time.
	lineTimed
	// lineUntimed starts an entry of its own whose time is missing or cannot
	// be read (a JSON object without a parseable time, a logfmt line whose
	// time field is malformed): never joined to the previous entry, never
	// given its time, only counted.
	lineUntimed
)

// parseLine parses a line in format f and says whether it starts an entry
// with a time, starts one without a readable time, or continues the previous.
func parseLine(f format, line []byte, tc *timeCtx, r *record) lineKind {
	r.reset()
	switch f {
	case fmtJSON:
		return parseJSON(line, tc, r)
	case fmtLogfmt:
		return parseLogfmt(line, tc, r)
	case fmtText:
		if parseText(line, tc, r) {
			return lineTimed
		}
	case fmtCustom:
		return tc.custom.parse(line, tc, r)
	}
	return lineCont
}

// normLevel maps the common spellings of a severity to ERROR, WARN, INFO or
// DEBUG ("" when the word is not a level).
func normLevel(b []byte) string {
	if len(b) == 0 || len(b) > 11 {
		return ""
	}
	var buf [11]byte
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(b)]) {
	case "error", "err", "e", "fatal", "crit", "critical", "panic", "alert", "emerg", "emergency", "severe", "50", "60":
		return "ERROR"
	case "warn", "warning", "w", "40":
		return "WARN"
	case "info", "information", "informational", "notice", "i", "30":
		return "INFO"
	case "debug", "trace", "d", "verbose", "fine", "finer", "finest", "10", "20":
		return "DEBUG"
	}
	return ""
}

// Key roles. A lower priority number wins when a line has several spellings.
const (
	roleField = iota
	roleTime
	roleLevel
	roleService
	roleMsg
)

func keyRole(k []byte) (role, pri int) {
	switch string(k) {
	case "ts":
		return roleTime, 0
	case "time":
		return roleTime, 1
	case "timestamp":
		return roleTime, 2
	case "@timestamp":
		return roleTime, 3
	case "t":
		return roleTime, 4
	case "level":
		return roleLevel, 0
	case "lvl":
		return roleLevel, 1
	case "severity":
		return roleLevel, 2
	case "log.level":
		return roleLevel, 3
	case "service":
		return roleService, 0
	case "service.name":
		return roleService, 1
	case "app":
		return roleService, 2
	case "component":
		return roleService, 3
	case "logger":
		return roleService, 4
	case "msg":
		return roleMsg, 0
	case "message":
		return roleMsg, 1
	case "log":
		return roleMsg, 2
	case "text":
		return roleMsg, 3
	}
	return roleField, 0
}

// assigner collects the recognised members of one line by priority.
type assigner struct {
	r                       *record
	timeV                   []byte
	timeP, levP, svcP, msgP int
	levelV                  []byte
}

func newAssigner(r *record) assigner {
	return assigner{r: r, timeP: 99, levP: 99, svcP: 99, msgP: 99}
}

func (a *assigner) add(k, v []byte) {
	role, pri := keyRole(k)
	switch role {
	case roleTime:
		if pri < a.timeP {
			a.timeP, a.timeV = pri, v
			return
		}
	case roleLevel:
		if pri < a.levP {
			a.levP, a.levelV = pri, v
			return
		}
	case roleService:
		if pri < a.svcP {
			a.svcP, a.r.service = pri, v
			return
		}
	case roleMsg:
		if pri < a.msgP {
			a.msgP, a.r.msg = pri, v
			return
		}
	}
	a.r.fields = append(a.r.fields, kv{k, v})
}

// finish reads the time and level of a parsed record. A record whose time
// member is missing is untimed when the line is a record on its own (a whole
// JSON object), else a continuation; a time member that does not parse makes
// the record untimed, never a continuation that would borrow the previous
// entry's time.
func (a *assigner) finish(tc *timeCtx, wholeRecord bool) lineKind {
	kind := lineUntimed
	if a.timeP == 99 {
		if !wholeRecord {
			return lineCont
		}
	} else if ts, ok := valueTime(a.timeV, tc); ok {
		a.r.ts = ts
		kind = lineTimed
	}
	if a.levP != 99 {
		a.r.level = normLevel(a.levelV)
		if a.r.level == "" {
			a.r.fields = append(a.r.fields, kv{[]byte("level"), a.levelV})
		}
	}
	return kind
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// parseJSON reads one JSON object per line. Nested objects are flattened with
// dotted keys (so {"log":{"level":"error"}} is log.level); arrays stay raw.
func parseJSON(line []byte, tc *timeCtx, r *record) lineKind {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return lineCont
	}
	a := newAssigner(r)
	if _, ok := jsonObject(line, i, nil, 0, &a); !ok {
		return lineCont
	}
	return a.finish(tc, true)
}

// jsonObject walks the object at b[i] ('{') and returns the index after it.
func jsonObject(b []byte, i int, prefix []byte, depth int, a *assigner) (int, bool) {
	i++ // {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		key, next, ok := jsonString(b, i)
		if !ok {
			return 0, false
		}
		if len(prefix) > 0 {
			key = append(append(append([]byte{}, prefix...), '.'), key...)
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '"':
			v, next, ok := jsonString(b, i)
			if !ok {
				return 0, false
			}
			a.add(key, v)
			i = next
		case c == '{' && depth < 3:
			next, ok := jsonObject(b, i, key, depth+1, a)
			if !ok {
				return 0, false
			}
			i = next
		case c == '{' || c == '[':
			end, ok := jsonSkip(b, i)
			if !ok {
				return 0, false
			}
			a.add(key, b[i:end])
			i = end
		default: // number, true, false, null
			start := i
			for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' {
				i++
			}
			if i == start {
				return 0, false
			}
			if v := b[start:i]; string(v) != "null" {
				a.add(key, v)
			}
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, false
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] == '}' {
			return i + 1, true
		}
		return 0, false
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
func parseLogfmt(line []byte, tc *timeCtx, r *record) lineKind {
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
		a.add(key, val)
	}
	if pairs == 0 {
		return lineCont
	}
	return a.finish(tc, false)
}

// parseText reads "TIMESTAMP [LEVEL] [[service]] message" with the stamp
// optionally in brackets and the level optionally bracketed or followed by ':'.
func parseText(line []byte, tc *timeCtx, r *record) bool {
	i := skipSpace(line, 0)
	bracket := i < len(line) && line[i] == '['
	if bracket {
		i++
	}
	ts, n, ok := leadingTime(line[i:], tc)
	if !ok {
		return false
	}
	i += n
	if bracket {
		if i >= len(line) || line[i] != ']' {
			return false
		}
		i++
	}
	if i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' {
		return false
	}
	r.ts = ts
	i = skipSpace(line, i)
	// level word
	if j, lvl := textLevel(line, i); lvl != "" {
		r.level = lvl
		i = skipSpace(line, j)
	}
	// [service]
	if i < len(line) && line[i] == '[' {
		if k := bytes.IndexByte(line[i:], ']'); k > 1 && k <= 64 && bytes.IndexByte(line[i+1:i+k], ' ') < 0 {
			r.service = line[i+1 : i+k]
			i = skipSpace(line, i+k+1)
		}
	}
	if r.level == "" { // "ts [svc] LEVEL msg"
		if j, lvl := textLevel(line, i); lvl != "" {
			r.level = lvl
			i = skipSpace(line, j)
		}
	}
	msg := line[i:]
	for len(msg) > 0 && (msg[len(msg)-1] == '\r' || msg[len(msg)-1] == ' ') {
		msg = msg[:len(msg)-1]
	}
	r.msg = msg
	return true
}

// textLevel recognises a level word at b[i]: ERROR, [ERROR], ERROR:, level=error.
func textLevel(b []byte, i int) (int, string) {
	j := i
	bracketed := j < len(b) && b[j] == '['
	if bracketed {
		j++
	}
	if bytes.HasPrefix(b[j:], []byte("level=")) {
		j += len("level=")
	}
	ws := j
	for j < len(b) && ((b[j] >= 'a' && b[j] <= 'z') || (b[j] >= 'A' && b[j] <= 'Z')) {
		j++
	}
	if j-ws < 4 && j-ws != 3 { // avoid one-letter words ("a", "I") being levels
		return i, ""
	}
	lvl := normLevel(b[ws:j])
	if lvl == "" {
		return i, ""
	}
	if bracketed {
		if j >= len(b) || b[j] != ']' {
			return i, ""
		}
		j++
	}
	if j < len(b) && b[j] == ':' {
		j++
	}
	if j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' {
		return i, ""
	}
	return j, lvl
}

// detectFormat picks the format under which most sample lines parse with a
// time (ties prefer json, then logfmt, then text); ok is false when none do.
func detectFormat(sample [][]byte, tc *timeCtx) (format, bool) {
	var r record
	best, bestN := fmtAuto, 0
	for _, f := range []format{fmtJSON, fmtLogfmt, fmtText} {
		n := 0
		for _, l := range sample {
			if parseLine(f, l, tc, &r) == lineTimed {
				n++
			}
		}
		if n > bestN {
			best, bestN = f, n
		}
	}
	return best, bestN > 0
}
