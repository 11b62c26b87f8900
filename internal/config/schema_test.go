package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/superbiz/superbiz/internal/timeline"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
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
		{"logs[].format", enumOf(reflect.TypeFor[LogSource](), "format"), []string{string(FormatJSON), string(FormatLogfmt), string(FormatText), string(FormatAuto), string(FormatCustom)}},
		{"databases[].driver", enumOf(reflect.TypeFor[Database](), "driver"), []string{string(DriverMySQL), string(DriverPostgres), string(DriverSQLite)}},
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

// TestEveryKeyIsDecoded loads a file that sets every declared key to a value
// other than its default: each must reach the loaded configuration, so a key
// the decoder skips (or reads into the wrong field) fails here.
func TestEveryKeyIsDecoded(t *testing.T) {
	data, err := os.ReadFile("testdata/every_key.toml")
	if err != nil {
		t.Fatal(err)
	}
	md, err := toml.Decode(string(data), new(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, k := range md.Keys() {
		set[k.String()] = true
	}
	// A key that excludes others in a valid file is set in its own file.
	exclusive := map[string]string{"alerts.bearer_token_env": "testdata/every_key_bearer.toml"}
	for _, k := range []string{"model.provider", "model.url", "model.api_key_env", "model.stream", "model.structured"} {
		exclusive[k] = "testdata/every_key_openai.toml"
	}
	for _, key := range Keys() {
		if !set[strings.ReplaceAll(key, "[]", "")] && exclusive[key] == "" {
			t.Errorf("testdata/every_key.toml does not set %s", key)
		}
	}
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.wd, "superbiz.toml"), string(data))
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for key, file := range exclusive {
		alt, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(w.wd, "superbiz.toml"), string(alt))
		altCfg, err := w.load(Overrides{}, "")
		if err != nil {
			t.Fatalf("Load %s: %v", file, err)
		}
		got, def := fieldByKey(reflect.ValueOf(*altCfg), key), fieldByKey(reflect.ValueOf(Defaults()), key)
		if reflect.DeepEqual(got.Interface(), def.Interface()) {
			t.Errorf("%s: %s loaded the default: the file's value was not decoded", file, key)
		}
		fieldByKey(reflect.ValueOf(cfg).Elem(), key).Set(got)
	}
	def := Defaults()
	def.Logs = []LogSource{NewLogSource()}
	def.Databases = []Database{NewDatabase()}
	def.Metrics = []MetricsSource{NewMetricsSource()}
	def.Kubernetes = []KubernetesSource{NewKubernetesSource()}
	def.Timeline.Metrics = []timeline.Metric{{}}
	def.Redis = []RedisSource{NewRedisSource()}
	n := sameAsDefault(t, "", reflect.ValueOf(*cfg), reflect.ValueOf(def))
	if n != len(Keys()) {
		t.Errorf("compared %d keys, Keys() has %d", n, len(Keys()))
	}
	if cfg.Logs[0].Location != time.UTC {
		t.Errorf("logs[0] location = %v, want UTC", cfg.Logs[0].Location)
	}
}

// sameAsDefault reports each declared value of got equal to its default in
// def (first entry of an array of tables; a key of such an entry counts as
// decoded when any entry differs, for keys one entry cannot set together)
// and returns how many it compared.
func sameAsDefault(t *testing.T, prefix string, got, def reflect.Value) int {
	t.Helper()
	n := 0
	for _, s := range specsOf(got.Type()) {
		g, d := got.FieldByIndex(s.index), def.FieldByIndex(s.index)
		switch {
		case isTable(s.typ):
			n += sameAsDefault(t, prefix+s.key+".", g, d)
		case s.typ.Kind() == reflect.Slice && isTable(s.typ.Elem()):
			if g.Len() == 0 {
				t.Errorf("%s: no entry loaded", prefix+s.key)
				continue
			}
			for _, es := range specsOf(s.typ.Elem()) {
				n++
				decoded := false
				for i := range g.Len() {
					decoded = decoded || !reflect.DeepEqual(g.Index(i).FieldByIndex(es.index).Interface(), d.Index(0).FieldByIndex(es.index).Interface())
				}
				if !decoded {
					t.Errorf("%s[].%s: every entry holds the default: the file's value was not decoded", prefix+s.key, es.key)
				}
			}
		default:
			n++
			if reflect.DeepEqual(g.Interface(), d.Interface()) {
				t.Errorf("%s: loaded %v, the default: the file's value was not decoded", prefix+s.key, g.Interface())
			}
		}
	}
	return n
}

// TestJSONView pins the JSON form: members in declaration order under their
// json names, durations as text, secrets redacted, empty arrays of tables as [].
func TestJSONView(t *testing.T) {
	c := Defaults()
	c.File, c.DBPath = "/etc/s.toml", "/d/s.db"
	c.Knowledge.Paths = []string{"/kb"}
	c.Databases = []Database{NewDatabase()}
	c.Databases[0].Name, c.Databases[0].Driver = "o", DriverMySQL
	dsn, err := NewDSN(DriverMySQL, "ro:Hunter2Secret@tcp(h:3306)/o")
	if err != nil {
		t.Fatal(err)
	}
	c.Databases[0].DSN = dsn
	c.Now = time.Date(2025, 3, 1, 14, 5, 0, 0, time.UTC)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"file":"/etc/s.toml","db_path":"/d/s.db",` +
		`"model":{"provider":"ollama","host":"http://127.0.0.1:11434","name":"qwen3:8b","num_ctx":16384,"temperature":0,"request_timeout":"3m","language":"auto","think":false,"api_key_env":"OPENAI_API_KEY","stream":true,"structured":"json_schema"},` +
		`"budget":{"max_model_calls":8,"max_tool_calls":6,"max_tokens":60000,"max_run_bytes":262144,"deadline":"5m","max_no_gain":2},` +
		`"limits":{"query":4096,"previous_turn":8192,"input":12288,"draft":16384,"observation":8192},` +
		`"knowledge":{"paths":["/kb"]},"logs":[],` +
		`"databases":[{"name":"o","driver":"mysql","dsn":"ro:[REDACTED]@tcp(h:3306)/o","max_rows":50,"timeout":"5s"}],"metrics":[],"kubernetes":[],"redis":[],` +
		`"skills":{"paths":null},` +
		`"alerts":{"url":"","bearer_token_env":"","username":"","password_env":"","timeout":"10s"},"timeline":{"metrics":[]},"now":"2025-03-01T14:05:00Z"}`
	if string(b) != want {
		t.Errorf("JSON view:\n got %s\nwant %s", b, want)
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
// declared key of its own type, named by its flag.
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
		if got := fieldByKey(cfg, key).Type(); got != f.Type.Elem() {
			t.Errorf("Overrides.%s is a *%s, key %s holds a %s", f.Name, f.Type.Elem(), key, got)
		}
		if !strings.HasPrefix(f.Tag.Get("flag"), "--") {
			t.Errorf("Overrides.%s: flag tag %q does not name a flag", f.Name, f.Tag.Get("flag"))
		}
	}
}
