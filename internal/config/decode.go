package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// decode reads the TOML bytes of file over cfg, key by key as the schema
// declares them. It reports every type error, unparsable value and unknown
// key; fatal is true for a syntax error.
func decode(data []byte, file string, cfg *Config) (probs []string, fatal bool) {
	if err := checkNesting(data, MaxDepth); err != nil {
		return []string{fmt.Sprintf("%s:%v", file, err)}, true
	}
	var root map[string]any
	if _, err := toml.Decode(string(data), &root); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return []string{fmt.Sprintf("%s:%d: TOML syntax error: %s", file, pe.Position.Line, clip(pe.Message))}, true
		}
		return []string{fmt.Sprintf("%s: TOML syntax error: %s", file, clip(err.Error()))}, true
	}
	d := &decoder{file: file}
	d.section("", root).decodeInto(reflect.ValueOf(cfg).Elem())
	return d.probs, false
}

// decodeInto reads every declared key of the struct v from this table, then
// reports the keys nobody declared.
func (s *section) decodeInto(v reflect.Value) {
	specs := specsOf(v.Type())
	for _, f := range specs {
		s.decodeKey(f, v, v.FieldByIndex(f.index))
	}
	if src, ok := v.Addr().Interface().(*LogSource); ok {
		s.loadZone(src)
	}
	s.finish(keysOf(v.Type()))
}

// decodeKey reads key f of this table into fv (a field of the struct parent).
func (s *section) decodeKey(f spec, parent, fv reflect.Value) {
	k := f.key
	switch {
	case f.typ == hostType:
		if str, ok := s.str(k); ok {
			h, err := ParseHost(str)
			if err != nil {
				s.d.addf("%s = %s in %s: %v", s.key(k), showHost(str), s.d.file, err)
			} else {
				fv.Set(reflect.ValueOf(h))
			}
		}
	case f.typ == dsnType:
		// The driver is declared before the DSN, so it is already read.
		driver := parent.FieldByName("Driver").Interface().(Driver)
		if raw, ok := s.str(k); ok && strings.TrimSpace(raw) != "" {
			switch driver {
			case DriverMySQL, DriverSQLite:
				dsn, err := NewDSN(driver, raw)
				if err != nil {
					// The message is built from fixed texts only: no part of raw.
					s.d.addf("%s in %s: %v", s.key(k), s.d.file, err)
				} else {
					fv.Set(reflect.ValueOf(dsn))
				}
			default:
				// Validate reports the driver; keep the DSN fully redacted.
				fv.Set(reflect.ValueOf(DSN{raw: raw}))
			}
		}
	case f.typ == durationType:
		if d, ok := s.dur(k); ok {
			fv.SetInt(int64(d))
		}
	case isTable(f.typ):
		if t, ok := s.table(k); ok {
			t.decodeInto(fv)
		}
	case f.typ.Kind() == reflect.Slice && isTable(f.typ.Elem()):
		if ts, ok := s.tables(k); ok {
			for _, t := range ts {
				e := reflect.New(f.typ.Elem()).Elem()
				fillDefaults(e)
				t.decodeInto(e)
				fv.Set(reflect.Append(fv, e))
			}
		}
	case f.typ.Kind() == reflect.Slice:
		if ps, ok := s.strs(k); ok {
			fv.Set(reflect.ValueOf(ps))
		}
	case f.typ.Kind() == reflect.String:
		if str, ok := s.str(k); ok {
			fv.SetString(str)
		}
	case f.typ.Kind() == reflect.Int:
		if n, ok := s.int(k); ok {
			fv.SetInt(int64(n))
		}
	case f.typ.Kind() == reflect.Float64:
		if n, ok := s.float(k); ok {
			fv.SetFloat(n)
		}
	case f.typ.Kind() == reflect.Bool:
		if b, ok := s.bool(k); ok {
			fv.SetBool(b)
		}
	default:
		panic(fmt.Sprintf("config: key %s has type %s, which the decoder cannot read", s.key(k), f.typ))
	}
}

// loadZone loads a log source's time zone, reporting an unknown one.
func (s *section) loadZone(src *LogSource) {
	if src.Timezone == "" {
		return
	}
	loc, err := loadLocation(src.Timezone)
	if err != nil {
		s.d.addf("%s = %s in %s: not a known time zone, write an IANA name such as \"Asia/Shanghai\", \"UTC\" or \"Local\"", s.key("timezone"), show(src.Timezone), s.d.file)
		return
	}
	src.Location = loc
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

func (s *section) int(k string) (int, bool) {
	v, ok := s.get(k)
	if !ok {
		return 0, false
	}
	n, isInt := v.(int64)
	if !isInt {
		s.typeErr(k, v, "an integer")
		return 0, false
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		s.d.addf("%s = %d in %s: out of range, far above any sensible limit", s.key(k), n, s.d.file)
		return 0, false
	}
	return int(n), true
}

func (s *section) float(k string) (float64, bool) {
	v, ok := s.get(k)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			s.typeErr(k, v, "a finite number")
			return 0, false
		}
		return n, true
	case int64:
		return float64(n), true
	default:
		s.typeErr(k, v, "a number")
		return 0, false
	}
}

func (s *section) bool(k string) (bool, bool) {
	v, ok := s.get(k)
	if !ok {
		return false, false
	}
	b, isBool := v.(bool)
	if !isBool {
		s.typeErr(k, v, "true or false")
		return false, false
	}
	return b, true
}

func (s *section) dur(k string) (time.Duration, bool) {
	v, ok := s.get(k)
	if !ok {
		return 0, false
	}
	str, isStr := v.(string)
	if !isStr {
		s.typeErr(k, v, `a duration string such as "180s" or "3m"`)
		return 0, false
	}
	dur, err := time.ParseDuration(strings.TrimSpace(str))
	if err != nil {
		s.d.addf(`%s = %s in %s: not a duration, write e.g. "180s" or "3m"`, s.key(k), show(str), s.d.file)
		return 0, false
	}
	return dur, true
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
