package config

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Summary returns one redacted line per part of the configuration, for
// debugging and every fmt verb: the file, then each table's lines in
// declaration order (config's own tables, then the lines of the parts the
// configuration was loaded with), then a fixed clock. It never contains a
// password.
func (c *Config) Summary() []string {
	file := c.File
	if file == "" {
		file = "defaults (no config file)"
	}
	lines := []string{"config: " + file}
	for _, s := range c.allTables() {
		for _, p := range c.partsOf(s.key) {
			if p.Summary != nil {
				lines = append(lines, p.Summary(c)...)
			}
		}
	}
	if !c.Now.IsZero() {
		lines = append(lines, "clock: fixed at "+c.Now.Format("2006-01-02T15:04:05Z07:00")+" ($"+EnvNow+")")
	}
	return lines
}

// String is the Summary on one line per part; it is what %v and %s print.
func (c Config) String() string { return strings.Join(c.Summary(), "\n") }

// GoString keeps %#v from walking the struct; it prints the redacted summary.
func (c Config) GoString() string { return "config.Config{" + strconv.Quote(c.String()) + "}" }

// Format prints the redacted summary under every verb: without it a verb
// that ignores String (%d) walks the struct, and the tables the parts
// declare sit in an unexported field, where fmt prints a DSN's password
// raw rather than through the DSN's own redacting methods.
func (c Config) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, c.GoString())
		return
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), c.String())
}

// pairs renders the declared keys of table v as "key value" pairs in
// declaration order, each followed by the flag or variable that set it; keys
// in skip are left out (the caller shows them its own way).
func (c *Config) pairs(prefix string, v reflect.Value, skip ...string) string {
	var out []string
	for _, s := range specsOf(v.Type()) {
		if slices.Contains(skip, s.key) {
			continue
		}
		fv := v.FieldByIndex(s.index)
		var val string
		switch {
		case s.typ == durationType:
			val = FormatDuration(time.Duration(fv.Int()))
		case fv.Kind() == reflect.Float64:
			val = fmtFloat(fv.Float())
		default:
			val = fmt.Sprint(fv.Interface())
		}
		out = append(out, s.key+" "+val+c.from(prefix+"."+s.key))
	}
	return strings.Join(out, ", ")
}

// from names a flag or variable that set key, for Summary lines.
func (c *Config) from(key string) string {
	if o := c.origins[key]; o != "" {
		return " (from " + o + ")"
	}
	return ""
}

func listOrNone(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, ", ")
}

// MarshalJSON encodes the configuration with durations as text ("5m") and
// secrets redacted, identically under encoding/json and json/v2. The members
// and their order are the struct declarations' (appendJSON).
func (c Config) MarshalJSON() ([]byte, error) {
	b, first, err := appendMembers([]byte{'{'}, reflect.ValueOf(c), true)
	if err != nil {
		return nil, err
	}
	for _, t := range c.declaredTables() {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(strconv.AppendQuote(b, t.key), ':')
		if b, err = appendJSON(b, t.v); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// jsonMarshal encodes a leaf value of the JSON view.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
