package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// tables lists every table type of the schema with its dotted prefix.
func tables(prefix string, t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{prefix: t}
	for _, s := range specsOf(t) {
		switch {
		case isTable(s.typ):
			for k, v := range tables(prefix+s.key+".", s.typ) {
				out[k] = v
			}
		case s.typ.Kind() == reflect.Slice && isTable(s.typ.Elem()):
			for k, v := range tables(prefix+s.key+"[].", s.typ.Elem()) {
				out[k] = v
			}
		}
	}
	return out
}

// TestDeclaredTags keeps every tag of the schema usable: bounds parse and
// are ordered, and each declared default lies within its own bounds or enum.
func TestDeclaredTags(t *testing.T) {
	for prefix, typ := range tables("", reflect.TypeFor[Config]()) {
		def := reflect.New(typ).Elem()
		fillDefaults(def)
		for _, s := range specsOf(typ) {
			key := prefix + s.key
			fv := def.FieldByIndex(s.index)
			if s.enum != nil && s.hasDef && !slices.Contains(s.enum, fv.String()) {
				t.Errorf("%s: default %q is not one of %v", key, fv.String(), s.enum)
			}
			if (s.min == "") != (s.max == "") {
				t.Errorf("%s: declares only one of min and max", key)
				continue
			}
			if s.min == "" {
				continue
			}
			var lo, hi, d float64
			switch {
			case s.typ == durationType:
				lo, hi, d = float64(mustDur(s.min)), float64(mustDur(s.max)), float64(fv.Int())
			case s.typ.Kind() == reflect.Int:
				lo, hi, d = float64(mustInt(s.min)), float64(mustInt(s.max)), float64(fv.Int())
			case s.typ.Kind() == reflect.Float64:
				lo, hi, d = mustFloat(s.min), mustFloat(s.max), fv.Float()
			default:
				t.Errorf("%s: bounds on a %s, which Validate does not range-check", key, s.typ)
				continue
			}
			if lo > hi {
				t.Errorf("%s: min %s above max %s", key, s.min, s.max)
			}
			if s.hasDef && (d < lo || d > hi) {
				t.Errorf("%s: default %s outside [%s, %s]", key, s.def, s.min, s.max)
			}
		}
	}
}

// TestEnumsMatchConstants keeps the enum tags equal to the typed constants
// the code switches on.
func TestEnumsMatchConstants(t *testing.T) {
	enumOf := func(typ reflect.Type, key string) []string {
		for _, s := range specsOf(typ) {
			if s.key == key {
				return s.enum
			}
		}
		return nil
	}
	tests := []struct {
		key  string
		got  []string
		want []string
	}{
		{"model.language", enumOf(reflect.TypeFor[Model](), "language"), []string{string(LanguageAuto), string(LanguageZH), string(LanguageEN)}},
		{"logs[].format", enumOf(reflect.TypeFor[logs.Source](), "format"), []string{string(logs.FormatJSON), string(logs.FormatLogfmt), string(logs.FormatText), string(logs.FormatAuto), string(logs.FormatCustom)}},
		{"databases[].driver", enumOf(reflect.TypeFor[sqlquery.Database](), "driver"), []string{string(sqlquery.DriverMySQL), string(sqlquery.DriverPostgres), string(sqlquery.DriverSQLite)}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: enum tag %v, constants %v", tt.key, tt.got, tt.want)
		}
	}
}

var validKeysRE = regexp.MustCompile(`unknown key "([^"]*)" in .*\(valid keys here: ([^)]*)\)`)

// TestKeysAreTheDecodersKeys keeps Keys equal to what the loader accepts: a
// file with an unknown key in each table is refused with that table's valid
// keys, and Keys lists exactly the values among them under that table.
func TestKeysAreTheDecodersKeys(t *testing.T) {
	const probe = "zzqqxxjjvvkk"
	all := tables("", reflect.TypeFor[Config]())
	var values []string
	for prefix, typ := range all {
		for _, s := range specsOf(typ) {
			if _, sub := all[prefix+s.key+"."]; !sub {
				if _, arr := all[prefix+s.key+"[]."]; !arr {
					values = append(values, prefix+s.key)
				}
			}
		}
	}
	slices.Sort(values)
	if keys := slices.Sorted(slices.Values(Keys())); !reflect.DeepEqual(keys, values) {
		t.Errorf("Keys() = %v, the schema's values are %v", keys, values)
	}
	for prefix, typ := range all {
		want := keysOf(typ)
		var body, path string
		switch {
		case prefix == "":
			body, path = probe+" = 1\n", probe
		case strings.HasSuffix(prefix, "[]."):
			name := strings.TrimSuffix(prefix, "[].")
			body, path = fmt.Sprintf("[[%s]]\n%s = 1\n", name, probe), name+"[0]."+probe
		default:
			name := strings.TrimSuffix(prefix, ".")
			body, path = fmt.Sprintf("[%s]\n%s = 1\n", name, probe), name+"."+probe
		}
		_, err := load([]byte(body), "/etc/superbiz.toml", "/wd", testEnv{}.get, Overrides{}, nil)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%q: want a configuration error, got %v", body, err)
		}
		var got []string
		for _, p := range ce.Problems {
			if m := validKeysRE.FindStringSubmatch(p); m != nil && m[1] == path {
				got = strings.Split(m[2], ", ")
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("table %q: the loader names valid keys %v, Keys declares %v", prefix, got, want)
		}
	}
}

// TestJSONView pins the JSON form: members in declaration order under their
// json names, durations as text, secrets redacted, empty arrays of tables as
// []. The order and the arrays are read from the declarations, so a new
// table needs no edit here; config's own tables are pinned literally.
func TestJSONView(t *testing.T) {
	c := Defaults(sourceShares...)
	c.File, c.DBPath = "/etc/s.toml", "/d/s.db"
	db := defaultsOf[sqlquery.Database]()
	db.Name, db.Driver = "o", sqlquery.DriverMySQL
	dsn, err := sqlquery.NewDSN(sqlquery.DriverMySQL, "ro:Hunter2Secret@tcp(h:3306)/o")
	if err != nil {
		t.Fatal(err)
	}
	db.DSN = dsn
	SetTable(&c, "databases", []sqlquery.Database{db})
	c.Now = time.Date(2025, 3, 1, 14, 5, 0, 0, time.UTC)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var members []string
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		want = append(want, name)
		if f.Type.Kind() == reflect.Slice && isTable(f.Type.Elem()) && reflect.ValueOf(c).Field(i).Len() == 0 && string(got[name]) != "[]" {
			t.Errorf("empty array of tables %s is %s, want []", name, got[name])
		}
	}
	for _, p := range declared(sourceShares) { // a declared table follows config's own
		want = append(want, p.Table)
	}
	if !slices.Equal(members, want) {
		t.Errorf("JSON members %q, want the declaration order %q", members, want)
	}
	for member, literal := range map[string]string{
		"file":      `"/etc/s.toml"`,
		"db_path":   `"/d/s.db"`,
		"model":     `{"provider":"ollama","host":"http://127.0.0.1:11434","name":"qwen3:8b","num_ctx":16384,"temperature":0,"request_timeout":"3m","language":"auto","think":false,"api_key_env":"OPENAI_API_KEY","stream":true,"structured":"json_schema"}`,
		"budget":    `{"max_model_calls":8,"max_tool_calls":6,"max_tokens":60000,"max_run_bytes":262144,"deadline":"5m","max_no_gain":2}`,
		"limits":    `{"query":4096,"previous_turn":8192,"input":12288,"draft":16384,"observation":8192}`,
		"databases": `[{"name":"o","driver":"mysql","dsn":"ro:[REDACTED]@tcp(h:3306)/o","max_rows":50,"timeout":"5s"}]`,
		"now":       `"2025-03-01T14:05:00Z"`,
	} {
		if string(got[member]) != literal {
			t.Errorf("JSON member %s:\n got %s\nwant %s", member, got[member], literal)
		}
	}
}

// TestSummaryNamesOrigins keeps the Summary's generated key/value pairs
// naming the flag that set a value, beside the declared defaults.
func TestSummaryNamesOrigins(t *testing.T) {
	w := newWorkspace(t)
	cfg, err := w.load(Overrides{MaxModelCalls: ptr(3), Timeout: ptr(2 * time.Minute)}, "")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := "budget: max_model_calls 3 (from --max-model-calls), max_tool_calls 6, max_tokens 60000, max_run_bytes 262144, deadline 2m (from --timeout), max_no_gain 2"
	if got := cfg.Summary(); !slices.Contains(got, want) {
		t.Errorf("summary lacks %q:\n%s", want, strings.Join(got, "\n"))
	}
}

// TestOverrideKeysAreDeclared keeps each flag override pointing at a
// declared key of its own type (a server URL key given as text, parsed by
// Load), named by its flag.
func TestOverrideKeysAreDeclared(t *testing.T) {
	typ := reflect.TypeFor[Overrides]()
	cfg := reflect.ValueOf(new(Config)).Elem()
	for i := range typ.NumField() {
		f := typ.Field(i)
		key := f.Tag.Get("key")
		if key == "" {
			continue
		}
		if !slices.Contains(Keys(), key) {
			t.Errorf("Overrides.%s names %q, which is not a declared key", f.Name, key)
			continue
		}
		if got := fieldByKey(cfg, key).Type(); got != f.Type.Elem() && (got != hostType || f.Type.Elem().Kind() != reflect.String) {
			t.Errorf("Overrides.%s is a *%s, key %s holds a %s", f.Name, f.Type.Elem(), key, got)
		}
		if !strings.HasPrefix(f.Tag.Get("flag"), "--") {
			t.Errorf("Overrides.%s: flag tag %q does not name a flag", f.Name, f.Tag.Get("flag"))
		}
	}
}
