package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/defaults"
)

// The configuration's schema is its struct declarations: each key is one
// struct field whose tags say everything the loader needs to know about it:
//
//	toml:"name"      the key in the file (a field without it is not a key)
//	default:"…"      the value when the file leaves the key out
//	min:"…" max:"…"  the range Validate checks (numbers, durations)
//	enum:"a,b"       the values Validate accepts
//	required:"true"  an empty value is reported as missing (a string's, an enum's)
//	why:"…"          appended to the range message
//	provider:"x"     a [model] key that means something for provider x only
//
// Key lists, "did you mean" suggestions, defaults, range checks, the JSON
// view and Keys are all read from these tags, so a key is declared once.

var (
	durationType = reflect.TypeFor[time.Duration]()
	timeType     = reflect.TypeFor[time.Time]()
	hostType     = reflect.TypeFor[HostURL]()
	textType     = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// spec is one declared key: a struct field and its tags.
type spec struct {
	index    []int // for reflect.Value.FieldByIndex: an embedded struct's keys are its parent's
	key      string
	typ      reflect.Type
	def      string
	hasDef   bool
	min, max string
	enum     []string
	required bool
	why      string
	provider string
}

// specsOf lists the keys declared by struct type t, in declaration order;
// the keys of an untagged embedded struct count as t's own, as in toml.
func specsOf(t reflect.Type) []spec {
	var out []spec
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("toml")
		if f.Anonymous && key == "" && f.Type.Kind() == reflect.Struct {
			for _, s := range specsOf(f.Type) {
				s.index = append([]int{i}, s.index...)
				out = append(out, s)
			}
			continue
		}
		if key == "" || key == "-" {
			continue
		}
		s := spec{index: []int{i}, key: key, typ: f.Type, min: f.Tag.Get("min"), max: f.Tag.Get("max"), why: f.Tag.Get("why"), provider: f.Tag.Get("provider")}
		s.def, s.hasDef = f.Tag.Lookup("default")
		if e := f.Tag.Get("enum"); e != "" {
			s.enum = strings.Split(e, ",")
		}
		s.required = f.Tag.Get("required") == "true"
		out = append(out, s)
	}
	return out
}

// keysOf lists the TOML keys of struct type t, for unknown-key messages.
func keysOf(t reflect.Type) []string {
	var out []string
	for _, s := range specsOf(t) {
		out = append(out, s.key)
	}
	return out
}

// Keys lists every key a configuration file may hold, in the reference's
// notation ("db", "model.host", "logs[].name"), in declaration order, the
// keys of the tables parts declare last; it is how tests and docs learn
// the keys without retyping them.
func Keys(parts ...Part) []string {
	var out []string
	for _, s := range KeySpecs(parts...) {
		out = append(out, s.Key)
	}
	return out
}

// fieldByKey finds the field of the struct v declared as the dotted key
// ("budget.deadline"); an undeclared key is a programming error
// (TestOverrideKeysAreDeclared) and panics.
func fieldByKey(v reflect.Value, key string) reflect.Value {
	for part := range strings.SplitSeq(key, ".") {
		found := false
		for _, s := range specsOf(v.Type()) {
			if s.key == part {
				v, found = v.FieldByIndex(s.index), true
				break
			}
		}
		if !found {
			panic("config: no key " + strconv.Quote(key))
		}
	}
	return v
}

// isTable reports whether t is a TOML table of the schema (not a value type
// that happens to be a struct).
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !isText(t)
}

// isText reports whether a value of t is read from a TOML string by its own
// UnmarshalText: a value type, even as a struct (HostURL, a [[databases]]
// entry's DSN, which keeps the text for its share to check, a time).
func isText(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(textType)
}

// fillDefaults sets every field of the struct v that declares a default,
// recursing into tables: defaults.Fill, which a Go program embedding the
// public packages uses too. A malformed default tag is a programming error
// that TestDeclaredDefaultsParse catches; it panics here.
func fillDefaults(v reflect.Value) {
	if err := defaults.Fill(v.Addr().Interface()); err != nil {
		panic("config: " + err.Error())
	}
}

// defaultsOf returns a T with its declared defaults.
func defaultsOf[T any]() T {
	var x T
	fillDefaults(reflect.ValueOf(&x).Elem())
	return x
}

// Defaults returns the built-in configuration read from the declarations,
// without the environment-dependent run store path. Validate and Summary
// run the integrations' parts given here beside config's own
// (registry.Defaults gives every registered one).
func Defaults(parts ...Part) Config {
	c := defaultsOf[Config]()
	c.parts = parts
	c.tables = newTables(parts)
	return c
}

// checkFields checks every key of the struct v (at prefix) against its
// declared range, enum or requirement, in declaration order, and the keys
// of the tables and arrays of tables below it ([[timeline.metrics]]); a key
// in custom is checked by that function instead.
func (v *Checker) checkFields(prefix string, x reflect.Value, custom map[string]func(key string)) {
	for _, s := range specsOf(x.Type()) {
		key := prefix + "." + s.key
		if fn, ok := custom[s.key]; ok {
			fn(key)
			continue
		}
		fv := x.FieldByIndex(s.index)
		switch {
		case isTable(s.typ):
			v.checkFields(key, fv, nil)
		case s.typ.Kind() == reflect.Slice && isTable(s.typ.Elem()):
			for i := range fv.Len() {
				v.checkFields(fmt.Sprintf("%s[%d]", key, i), fv.Index(i), nil)
			}
		case s.enum != nil:
			v.enum(key, fv.String(), s)
		case s.required && fv.Kind() == reflect.String && fv.String() == "":
			v.Bad(key, `""`, missing(prefix, x, s.key))
		case s.min == "" && s.max == "":
		case s.typ == durationType:
			lo, hi := mustDur(s.min), mustDur(s.max)
			v.durRange(key, time.Duration(fv.Int()), lo, hi)
		case fv.Kind() == reflect.Int:
			v.intRange(key, int(fv.Int()), mustInt(s.min), mustInt(s.max))
		case fv.Kind() == reflect.Float64:
			lo, hi, f := mustFloat(s.min), mustFloat(s.max), fv.Float()
			if f < lo || f > hi {
				msg := fmt.Sprintf("must be between %s and %s", fmtFloat(lo), fmtFloat(hi))
				if s.why != "" {
					msg += " (" + s.why + ")"
				}
				v.Bad(key, show(f), msg)
			}
		}
	}
}

// missing is the problem of the required key k left empty in the table x
// at prefix: `missing: every [[timeline.metrics]] entry needs its name`,
// or, for an entry that has a name, `missing: the [[timeline.metrics]]
// entry "p99" needs its query`.
func missing(prefix string, x reflect.Value, k string) string {
	i := strings.LastIndexByte(prefix, '[')
	if i < 0 || !strings.HasSuffix(prefix, "]") {
		return fmt.Sprintf("missing: [%s] needs its %s", prefix, k)
	}
	if name, ok := nameOf(x); ok && name != "" {
		return fmt.Sprintf("missing: the [[%s]] entry %s needs its %s", prefix[:i], show(name), k)
	}
	return fmt.Sprintf("missing: every [[%s]] entry needs its %s", prefix[:i], k)
}

// enum checks val against the declared values of s.
func (v *Checker) enum(key, val string, s spec) {
	for _, e := range s.enum {
		if val == e {
			return
		}
	}
	msg := "must be one of " + strings.Join(s.enum, ", ")
	if val == "" && s.required {
		v.Bad(key, `""`, "missing: "+msg)
		return
	}
	v.Bad(key, show(val), msg)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// mustInt, mustDur and mustFloat read a bound tag; TestDeclaredBoundsParse
// keeps every tag parsable.
func mustInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic("config: bound tag " + strconv.Quote(s) + ": " + err.Error())
	}
	return n
}

func mustDur(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic("config: bound tag " + strconv.Quote(s) + ": " + err.Error())
	}
	return d
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("config: bound tag " + strconv.Quote(s) + ": " + err.Error())
	}
	return f
}

// appendJSON writes the JSON view of v: tables as objects in declaration
// order under their json names, durations as text ("5m"), times as RFC 3339,
// arrays of tables as [] when empty, everything else through encoding/json
// (so HostURL and a DSN encode redacted).
func appendJSON(b []byte, v reflect.Value) ([]byte, error) {
	t := v.Type()
	switch {
	case t == durationType:
		return strconv.AppendQuote(b, FormatDuration(time.Duration(v.Int()))), nil
	case t == timeType:
		return strconv.AppendQuote(b, v.Interface().(time.Time).Format(time.RFC3339)), nil
	case isTable(t):
		b, _, err := appendMembers(append(b, '{'), v, true)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case t.Kind() == reflect.Slice && isTable(t.Elem()):
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	raw, err := jsonMarshal(v.Interface())
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// appendMembers writes the JSON members of the struct v after a '{' (first:
// none written yet); an untagged embedded struct's members are v's own, as
// in encoding/json.
func appendMembers(b []byte, v reflect.Value, first bool) ([]byte, bool, error) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		var err error
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if b, first, err = appendMembers(b, v.Field(i), first); err != nil {
				return nil, false, err
			}
			continue
		}
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		if (opts == "omitzero" || opts == "omitempty") && v.Field(i).IsZero() {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = strconv.AppendQuote(b, name)
		b = append(b, ':')
		if b, err = appendJSON(b, v.Field(i)); err != nil {
			return nil, false, err
		}
	}
	return b, first, nil
}

// Values are the values key (Keys' notation: "model.host", "logs[].name")
// holds in c, one per entry for a key of an array of tables, so a test or
// a generated reference reads any declared key without retyping the schema.
// An undeclared key is a programming error and panics.
func (c *Config) Values(key string) []any {
	parts := strings.Split(key, ".")
	name, array := strings.CutSuffix(parts[0], "[]")
	for _, t := range c.declaredTables() {
		if t.key == name {
			return fanOut(t.v, array, parts[1:])
		}
	}
	return valuesAt(reflect.ValueOf(c).Elem(), parts)
}

// valuesAt follows the key's parts from v, fanning out over the entries of
// an array of tables ("logs[]").
func valuesAt(v reflect.Value, parts []string) []any {
	if len(parts) == 0 {
		return []any{v.Interface()}
	}
	name, array := strings.CutSuffix(parts[0], "[]")
	return fanOut(fieldByKey(v, name), array, parts[1:])
}

// fanOut is valuesAt of the rest of a key from f, over each entry of f
// when it is an array of tables.
func fanOut(f reflect.Value, array bool, rest []string) []any {
	if !array {
		return valuesAt(f, rest)
	}
	var out []any
	for i := range f.Len() {
		out = append(out, valuesAt(f.Index(i), rest)...)
	}
	return out
}

// Default is the value the loader gives key when the file leaves it out
// (a fresh entry's, for a key of an array of tables); a key of a table a
// share declares needs that share among parts.
func Default(key string, parts ...Part) any {
	c := Defaults(parts...)
	oneEntryEach(reflect.ValueOf(&c).Elem())
	ts := c.declaredTables()
	for _, t := range ts {
		oneEntry(t.v, t.typ)
	}
	c.storeTables(ts)
	return c.Values(key)[0]
}

// oneEntryEach gives every array of tables under the struct v one entry
// holding its declared defaults.
func oneEntryEach(v reflect.Value) {
	for _, s := range specsOf(v.Type()) {
		oneEntry(v.FieldByIndex(s.index), s.typ)
	}
}

// oneEntry gives the value f of type t, when it is an array of tables, one
// entry holding its declared defaults, and so on in every table below.
func oneEntry(f reflect.Value, t reflect.Type) {
	switch {
	case isTable(t):
		oneEntryEach(f)
	case t.Kind() == reflect.Slice && isTable(t.Elem()):
		f.Set(reflect.Append(reflect.MakeSlice(t, 0, 1), reflect.New(t.Elem()).Elem()))
		fillDefaults(f.Index(0))
		oneEntryEach(f.Index(0))
	}
}

// KeySpec is one declared key as its struct tags declare it, for the
// generated reference of docs/SPEC.md.
type KeySpec struct {
	// Key is the key in Keys' notation ("model.host", "logs[].name").
	Key string
	// Type is the Go type of its value.
	Type reflect.Type
	// Default is the default tag's text; HasDefault says there is one.
	Default    string
	HasDefault bool
	// Min and Max are the range's bounds ("" for none), as written.
	Min, Max string
	// Enum are the accepted values, nil for any.
	Enum []string
	// Provider is the only model.provider the key means something for.
	Provider string
}

// KeySpecs are every declared key's tags, in Keys' order: config's own,
// then those of the tables the parts declare (Part.Schema).
func KeySpecs(parts ...Part) []KeySpec {
	out := appendSpecs(nil, "", reflect.TypeFor[Config]())
	for _, t := range schemaTables(parts) {
		out = appendSpec(out, "", spec{key: t.key, typ: t.typ})
	}
	return out
}

func appendSpecs(out []KeySpec, prefix string, t reflect.Type) []KeySpec {
	for _, s := range specsOf(t) {
		out = appendSpec(out, prefix, s)
	}
	return out
}

// appendSpec appends the key s declares at prefix, or the keys of its table.
func appendSpec(out []KeySpec, prefix string, s spec) []KeySpec {
	switch {
	case isTable(s.typ):
		return appendSpecs(out, prefix+s.key+".", s.typ)
	case s.typ.Kind() == reflect.Slice && isTable(s.typ.Elem()):
		return appendSpecs(out, prefix+s.key+"[].", s.typ.Elem())
	}
	return append(out, KeySpec{Key: prefix + s.key, Type: s.typ, Default: s.def, HasDefault: s.hasDef,
		Min: s.min, Max: s.max, Enum: s.enum, Provider: s.provider})
}
