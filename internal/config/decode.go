package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/superbiz/superbiz/internal/notfound"
)

// decode reads the TOML bytes of file over cfg and reports every type error,
// unparsable value and unknown key; fatal is true for a syntax error.
//
// BurntSushi's toml decodes every value into its struct field. It stops at a
// document's first bad value, though, so a table is decoded one key at a
// time (MetaData.PrimitiveDecode): one bad value never hides the next. Its
// MetaData.Undecoded cannot serve the unknown keys: its keys carry no array
// index ("logs.formatt" for logs[1].formatt), so each table's keys are
// matched against the declared ones instead.
func decode(data []byte, file string, cfg *Config) (probs []string, fatal bool) {
	if err := checkNesting(data, MaxDepth); err != nil {
		return []string{fmt.Sprintf("%s:%v", file, err)}, true
	}
	var root toml.Primitive
	md, err := toml.Decode(string(data), &root)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return []string{fmt.Sprintf("%s:%d: TOML syntax error: %s", file, pe.Position.Line, clip(pe.Message))}, true
		}
		return []string{fmt.Sprintf("%s: TOML syntax error: %s", file, clip(err.Error()))}, true
	}
	cfg.fileKeys = map[string]bool{}
	for _, k := range md.Keys() {
		cfg.fileKeys[k.String()] = true
	}
	d := &decoder{md: &md, file: file}
	shares := cfg.declaredTables()
	d.table("", root, reflect.ValueOf(cfg).Elem(), shares...)
	cfg.storeTables(shares)
	return d.probs, false
}

// decoder collects the problems of one file.
type decoder struct {
	md    *toml.MetaData
	file  string
	probs []string
}

func (d *decoder) addf(format string, args ...any) {
	d.probs = append(d.probs, fmt.Sprintf(format, args...))
}

// raw is the TOML value p holds (string, int64, float64, bool, a date-time,
// []any or map[string]any), for type checks and messages.
func (d *decoder) raw(p toml.Primitive) any {
	var v any
	if err := d.md.PrimitiveDecode(p, &v); err != nil {
		panic("config: decoding a TOML value into any failed: " + err.Error())
	}
	return v
}

// typeErr reports a value of the wrong TOML type.
func (d *decoder) typeErr(key string, v any, want string) {
	d.addf("%s = %s in %s: must be %s", key, show(v), d.file, want)
}

// table decodes the TOML table p into the struct v, key by key in
// declaration order, and its keys named by shares (the tables the parts
// declare, at the root), then reports the keys nobody declared.
func (d *decoder) table(path string, p toml.Primitive, v reflect.Value, shares ...table) {
	if _, ok := d.raw(p).(map[string]any); !ok {
		d.addf("%s in %s: must be a table ([%s]), found %s", path, d.file, path, kind(d.raw(p)))
		return
	}
	var keys map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(p, &keys); err != nil {
		panic("config: decoding a TOML table into a map failed: " + err.Error())
	}
	specs := specsOf(v.Type())
	for _, s := range specs {
		if kp, ok := keys[s.key]; ok {
			d.value(join(path, s.key), kp, v.FieldByIndex(s.index))
			delete(keys, s.key)
		}
	}
	known := keysOf(v.Type())
	for _, t := range shares {
		if kp, ok := keys[t.key]; ok {
			d.value(t.key, kp, t.v)
			delete(keys, t.key)
		}
		known = append(known, t.key)
	}
	d.unknown(path, keys, known)
}

// value decodes p into the field v named key: a table, an array of tables or
// a single value.
func (d *decoder) value(key string, p toml.Primitive, v reflect.Value) {
	t := v.Type()
	switch {
	case isTable(t):
		d.table(key, p, v)
	case t.Kind() == reflect.Slice && isTable(t.Elem()):
		items, ok := d.array(p)
		if !ok {
			d.addf("%s in %s: must be an array of tables ([[%s]]), found %s", key, d.file, key, kind(d.raw(p)))
			return
		}
		for _, item := range items {
			if _, isTable := d.raw(item).(map[string]any); !isTable {
				d.addf("%s in %s: must be an array of tables ([[%s]]), found an element that is %s", key, d.file, key, kind(d.raw(item)))
				return
			}
		}
		for i, item := range items {
			e := reflect.New(t.Elem()).Elem()
			fillDefaults(e)
			d.table(fmt.Sprintf("%s[%d]", key, i), item, e)
			v.Set(reflect.Append(v, e))
		}
	case t.Kind() == reflect.Slice:
		items, ok := d.array(p)
		if !ok {
			d.typeErr(key, d.raw(p), expected(t))
			return
		}
		out := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			if !d.scalar(fmt.Sprintf("%s[%d]", key, i), item, out.Index(i)) {
				return
			}
		}
		v.Set(out)
	default:
		d.scalar(key, p, v)
	}
}

// array splits p into its elements; ok is false when p is no array.
func (d *decoder) array(p toml.Primitive) (items []toml.Primitive, ok bool) {
	switch d.raw(p).(type) {
	case []any, []map[string]any:
	default:
		return nil, false
	}
	if err := d.md.PrimitiveDecode(p, &items); err != nil {
		panic("config: decoding a TOML array into primitives failed: " + err.Error())
	}
	return items, true
}

// scalar decodes the single value p into v and reports whether it could.
func (d *decoder) scalar(key string, p toml.Primitive, v reflect.Value) bool {
	t, raw := v.Type(), d.raw(p)
	str, isStr := raw.(string)
	if !isStr && (t == durationType || isText(t)) {
		// toml would read an integer as nanoseconds, or a number as text.
		d.typeErr(key, raw, expected(t))
		return false
	}
	if err := d.md.PrimitiveDecode(p, v.Addr().Interface()); err != nil {
		switch t {
		case durationType:
			d.addf(`%s = %s in %s: not a duration, write e.g. "180s" or "3m"`, key, show(str), d.file)
		case hostType:
			var pe toml.ParseError
			msg := err.Error()
			if errors.As(err, &pe) {
				msg = pe.Message // the ParseHost error, which never holds a password
			}
			d.addf("%s = %s in %s: %s", key, showHost(str), d.file, msg)
		default:
			d.typeErr(key, raw, expected(t))
		}
		return false
	}
	switch n := raw.(type) {
	case int64:
		if t.Kind() == reflect.Int && (n > math.MaxInt32 || n < math.MinInt32) {
			d.addf("%s = %d in %s: out of range, far above any sensible limit", key, n, d.file)
			return false
		}
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			d.typeErr(key, raw, "a finite number")
			return false
		}
	}
	return true
}

// expected names the TOML value a field of type t takes, for messages.
func expected(t reflect.Type) string {
	switch {
	case t == durationType:
		return `a duration string such as "180s" or "3m"`
	case t.Kind() == reflect.Int:
		return "an integer"
	case t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Slice:
		return `an array of strings, e.g. ["./runbooks"]`
	default:
		return "a string"
	}
}

// join is the dotted name of key k in the table at path, as messages show it.
func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// unknown reports every key of the table at path that is not known.
func (d *decoder) unknown(path string, keys map[string]toml.Primitive, known []string) {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		msg := fmt.Sprintf("unknown key %s in %s", strconv.Quote(clip(join(path, k))), d.file)
		if sug := suggest(k, known); sug != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", join(path, sug))
		} else {
			msg += fmt.Sprintf(" (valid keys here: %s)", strings.Join(known, ", "))
		}
		d.probs = append(d.probs, msg)
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
		if d := notfound.Distance(lk, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 2 || (bestD <= 3 && len(best) >= 8) {
		return best
	}
	return ""
}
