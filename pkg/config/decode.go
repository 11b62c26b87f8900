package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// fileValues records which defaults the file replaced where "absent" and
// "empty" mean different things.
type fileValues struct {
	knowledgePaths bool
}

// Known keys of each table, for strictness and "did you mean" suggestions.
var (
	topKeys       = []string{"db", "model", "budget", "limits", "knowledge", "logs", "databases", "skills"}
	modelKeys     = []string{"host", "name", "num_ctx", "temperature", "request_timeout", "language", "think"}
	budgetKeys    = []string{"max_model_calls", "max_tool_calls", "max_tokens", "max_run_bytes", "deadline", "max_no_gain"}
	limitsKeys    = []string{"query", "previous_turn", "input", "draft", "observation"}
	knowledgeKeys = []string{"paths"}
	logKeys       = []string{"name", "paths", "format", "timezone", "max_window"}
	databaseKeys  = []string{"name", "driver", "dsn", "max_rows", "timeout"}
	skillsKeys    = []string{"paths"}
)

// decode reads the TOML bytes of file over cfg. It reports every type error,
// unparsable value and unknown key; fatal is true for a syntax error.
func decode(data []byte, file string, cfg *Config) (set fileValues, probs []string, fatal bool) {
	if err := checkNesting(data, MaxDepth); err != nil {
		return set, []string{fmt.Sprintf("%s:%v", file, err)}, true
	}
	var root map[string]any
	if _, err := toml.Decode(string(data), &root); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return set, []string{fmt.Sprintf("%s:%d: TOML syntax error: %s", file, pe.Position.Line, clip(pe.Message))}, true
		}
		return set, []string{fmt.Sprintf("%s: TOML syntax error: %s", file, clip(err.Error()))}, true
	}
	d := &decoder{file: file}
	top := d.section("", root)

	if s, ok := top.str("db"); ok {
		cfg.DBPath = s
	}
	if t, ok := top.table("model"); ok {
		m := &cfg.Model
		if s, ok := t.str("host"); ok {
			h, err := ParseHost(s)
			if err != nil {
				d.addf("%s = %s in %s: %v", t.key("host"), showHost(s), file, err)
			} else {
				m.Host = h
			}
		}
		t.strInto("name", &m.Name)
		t.intInto("num_ctx", &m.NumCtx)
		t.floatInto("temperature", &m.Temperature)
		t.durInto("request_timeout", &m.RequestTimeout)
		if s, ok := t.str("language"); ok {
			m.Language = Language(s)
		}
		t.boolInto("think", &m.Think)
		t.finish(modelKeys)
	}
	if t, ok := top.table("budget"); ok {
		b := &cfg.Budget
		t.intInto("max_model_calls", &b.MaxModelCalls)
		t.intInto("max_tool_calls", &b.MaxToolCalls)
		t.intInto("max_tokens", &b.MaxTokens)
		t.intInto("max_run_bytes", &b.MaxRunBytes)
		t.durInto("deadline", &b.Deadline)
		t.intInto("max_no_gain", &b.MaxNoGain)
		t.finish(budgetKeys)
	}
	if t, ok := top.table("limits"); ok {
		l := &cfg.Limits
		t.intInto("query", &l.Query)
		t.intInto("previous_turn", &l.PreviousTurn)
		t.intInto("input", &l.Input)
		t.intInto("draft", &l.Draft)
		t.intInto("observation", &l.Observation)
		t.finish(limitsKeys)
	}
	if t, ok := top.table("knowledge"); ok {
		if ps, ok := t.strs("paths"); ok {
			cfg.Knowledge.Paths = ps
			set.knowledgePaths = true
		}
		t.finish(knowledgeKeys)
	}
	if t, ok := top.table("skills"); ok {
		if ps, ok := t.strs("paths"); ok {
			cfg.Skills.Paths = ps
		}
		t.finish(skillsKeys)
	}
	if ts, ok := top.tables("logs"); ok {
		for _, t := range ts {
			src := LogSource{Format: FormatAuto, Timezone: DefaultLogTimezone, MaxWindow: DefaultLogMaxWindow}
			t.strInto("name", &src.Name)
			if ps, ok := t.strs("paths"); ok {
				src.Paths = ps
			}
			if s, ok := t.str("format"); ok {
				src.Format = LogFormat(s)
			}
			t.strInto("timezone", &src.Timezone)
			t.durInto("max_window", &src.MaxWindow)
			if src.Timezone != "" {
				loc, err := loadLocation(src.Timezone)
				if err != nil {
					d.addf("%s = %s in %s: not a known time zone, write an IANA name such as \"Asia/Shanghai\", \"UTC\" or \"Local\"", t.key("timezone"), show(src.Timezone), file)
				} else {
					src.Location = loc
				}
			}
			t.finish(logKeys)
			cfg.Logs = append(cfg.Logs, src)
		}
	}
	if ts, ok := top.tables("databases"); ok {
		for _, t := range ts {
			db := Database{MaxRows: DefaultDBMaxRows, Timeout: DefaultDBTimeout}
			t.strInto("name", &db.Name)
			if s, ok := t.str("driver"); ok {
				db.Driver = Driver(s)
			}
			if raw, ok := t.str("dsn"); ok && strings.TrimSpace(raw) != "" {
				switch db.Driver {
				case DriverMySQL, DriverSQLite:
					dsn, err := NewDSN(db.Driver, raw)
					if err != nil {
						// The message is built from fixed texts only: no part of raw.
						d.addf("%s in %s: %v", t.key("dsn"), file, err)
					} else {
						db.DSN = dsn
					}
				default:
					// Validate reports the driver; keep the DSN fully redacted.
					db.DSN = DSN{raw: raw}
				}
			}
			t.intInto("max_rows", &db.MaxRows)
			t.durInto("timeout", &db.Timeout)
			t.finish(databaseKeys)
			cfg.Databases = append(cfg.Databases, db)
		}
	}
	top.finish(topKeys)
	return set, d.probs, false
}

// loadLocation loads a zone name; "Local" and "UTC" never touch the zone database.
func loadLocation(name string) (*time.Location, error) {
	if strings.ContainsAny(name, "\x00") || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, errors.New("invalid zone name")
	}
	return time.LoadLocation(name)
}

// decoder collects the problems of one file.
type decoder struct {
	file  string
	probs []string
}

func (d *decoder) addf(format string, args ...any) {
	d.probs = append(d.probs, fmt.Sprintf(format, args...))
}

// section is one TOML table being read; it remembers which keys were used so
// the rest are reported as unknown.
type section struct {
	d    *decoder
	path string
	m    map[string]any
	used map[string]bool
}

func (d *decoder) section(path string, m map[string]any) *section {
	return &section{d: d, path: path, m: m, used: map[string]bool{}}
}

// key is the dotted name of k in this table, as messages show it.
func (s *section) key(k string) string {
	if s.path == "" {
		return k
	}
	return s.path + "." + k
}

func (s *section) get(k string) (any, bool) {
	v, ok := s.m[k]
	if ok {
		s.used[k] = true
	}
	return v, ok
}

// typeErr reports a value of the wrong TOML type.
func (s *section) typeErr(k string, v any, want string) {
	s.d.addf("%s = %s in %s: must be %s", s.key(k), show(v), s.d.file, want)
}

func (s *section) str(k string) (string, bool) {
	v, ok := s.get(k)
	if !ok {
		return "", false
	}
	str, isStr := v.(string)
	if !isStr {
		s.typeErr(k, v, "a string")
		return "", false
	}
	return str, true
}

func (s *section) strInto(k string, dst *string) {
	if v, ok := s.str(k); ok {
		*dst = v
	}
}

func (s *section) intInto(k string, dst *int) {
	v, ok := s.get(k)
	if !ok {
		return
	}
	n, isInt := v.(int64)
	if !isInt {
		s.typeErr(k, v, "an integer")
		return
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		s.d.addf("%s = %d in %s: out of range, far above any sensible limit", s.key(k), n, s.d.file)
		return
	}
	*dst = int(n)
}

func (s *section) floatInto(k string, dst *float64) {
	v, ok := s.get(k)
	if !ok {
		return
	}
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			s.typeErr(k, v, "a finite number")
			return
		}
		*dst = n
	case int64:
		*dst = float64(n)
	default:
		s.typeErr(k, v, "a number")
	}
}

func (s *section) boolInto(k string, dst *bool) {
	v, ok := s.get(k)
	if !ok {
		return
	}
	b, isBool := v.(bool)
	if !isBool {
		s.typeErr(k, v, "true or false")
		return
	}
	*dst = b
}

func (s *section) durInto(k string, dst *time.Duration) {
	v, ok := s.get(k)
	if !ok {
		return
	}
	str, isStr := v.(string)
	if !isStr {
		s.typeErr(k, v, `a duration string such as "180s" or "3m"`)
		return
	}
	dur, err := time.ParseDuration(strings.TrimSpace(str))
	if err != nil {
		s.d.addf(`%s = %s in %s: not a duration, write e.g. "180s" or "3m"`, s.key(k), show(str), s.d.file)
		return
	}
	*dst = dur
}

func (s *section) strs(k string) ([]string, bool) {
	v, ok := s.get(k)
	if !ok {
		return nil, false
	}
	arr, isArr := v.([]any)
	if !isArr {
		s.typeErr(k, v, `an array of strings, e.g. ["./runbooks"]`)
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		str, isStr := e.(string)
		if !isStr {
			s.d.addf("%s[%d] = %s in %s: must be a string", s.key(k), i, show(e), s.d.file)
			return nil, false
		}
		out = append(out, str)
	}
	return out, true
}

func (s *section) table(k string) (*section, bool) {
	v, ok := s.get(k)
	if !ok {
		return nil, false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		s.d.addf("%s in %s: must be a table ([%s]), found %s", s.key(k), s.d.file, s.key(k), kind(v))
		return nil, false
	}
	return s.d.section(s.key(k), m), true
}

func (s *section) tables(k string) ([]*section, bool) {
	v, ok := s.get(k)
	if !ok {
		return nil, false
	}
	var maps []map[string]any
	switch a := v.(type) {
	case []map[string]any:
		maps = a
	case []any:
		for _, e := range a {
			m, isMap := e.(map[string]any)
			if !isMap {
				s.d.addf("%s in %s: must be an array of tables ([[%s]]), found an element that is %s", s.key(k), s.d.file, s.key(k), kind(e))
				return nil, false
			}
			maps = append(maps, m)
		}
	default:
		s.d.addf("%s in %s: must be an array of tables ([[%s]]), found %s", s.key(k), s.d.file, s.key(k), kind(v))
		return nil, false
	}
	out := make([]*section, len(maps))
	for i, m := range maps {
		out[i] = s.d.section(fmt.Sprintf("%s[%d]", s.key(k), i), m)
	}
	return out, true
}

// finish reports every key of the table that no reader asked for.
func (s *section) finish(known []string) {
	var unknown []string
	for k := range s.m {
		if !s.used[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		msg := fmt.Sprintf("unknown key %s in %s", strconv.Quote(clip(s.key(k))), s.d.file)
		if sug := suggest(k, known); sug != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s.key(sug))
		} else {
			msg += fmt.Sprintf(" (valid keys here: %s)", strings.Join(known, ", "))
		}
		s.d.probs = append(s.d.probs, msg)
	}
}

// suggest returns the known key closest to k when it is plausibly a typo.
func suggest(k string, known []string) string {
	best, bestD := "", math.MaxInt
	lk := strings.ToLower(strings.ReplaceAll(k, "-", "_"))
	for _, c := range known {
		if lk == c {
			return c
		}
		if d := levenshtein(lk, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 2 || (bestD <= 3 && len(best) >= 8) {
		return best
	}
	return ""
}

// levenshtein is the edit distance between two short keys.
func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
