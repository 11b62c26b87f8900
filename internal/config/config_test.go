package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// testEnv is an injected environment: tests never read the process's.
type testEnv map[string]string

func (e testEnv) get(k string) string { return e[k] }

// workspace is a temp working directory plus an isolated XDG/HOME layout.
type workspace struct {
	wd, configHome, dataHome, home string
	env                            testEnv
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	root := t.TempDir()
	w := &workspace{
		wd:         filepath.Join(root, "wd"),
		configHome: filepath.Join(root, "xdgconfig"),
		dataHome:   filepath.Join(root, "xdgdata"),
		home:       filepath.Join(root, "home"),
	}
	for _, d := range []string{w.wd, w.configHome, w.dataHome, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = testEnv{"XDG_CONFIG_HOME": w.configHome, "XDG_DATA_HOME": w.dataHome, "HOME": w.home}
	return w
}

func (w *workspace) load(ov Overrides, configPath string) (*Config, error) {
	return Load(LoadOptions{ConfigPath: configPath, WorkDir: w.wd, Getenv: w.env.get, Overrides: ov, Parts: testParts})
}

// The variables the providers' shares declare (Part.Env; the ollama and
// openai folders test their own), declared here as a share does so these
// tests run the precedence through Part.Env.
const (
	envHost    = "OLLAMA_HOST"
	envBaseURL = "OPENAI_BASE_URL"
)

// envParts are shares declaring only envHost and envBaseURL.
var envParts = []Part{{Table: "model", Env: []EnvKey{{Var: envHost, Key: "model.host"}}}, {Table: "model", Env: []EnvKey{{Var: envBaseURL, Key: "model.url"}}}}

func ptr[T any](v T) *T { return &v }

func TestDefaultsWithoutFile(t *testing.T) {
	w := newWorkspace(t)
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Defaults(testParts...)
	want.DBPath = filepath.Join(w.dataHome, "superbiz", "superbiz.db")
	want.origins = map[string]string{}
	if !reflect.DeepEqual(*cfg, want) {
		t.Fatalf("defaults:\n got %#v\nwant %#v", cfg.Summary(), want.Summary())
	}
	if cfg.File != "" {
		t.Errorf("File = %q, want empty (no config file)", cfg.File)
	}
	// The values of docs/SPEC.md#keys, spelled out so a changed constant fails here.
	m, b, l := cfg.Model, cfg.Budget, cfg.Limits
	if m.Host.Reveal() != "http://127.0.0.1:11434" || m.Name != "qwen3:8b" || m.NumCtx != 16384 ||
		m.Temperature != 0 || m.RequestTimeout != 180*time.Second || m.Language != LanguageAuto || m.Think {
		t.Errorf("model defaults = %+v", m)
	}
	if b != (Budget{MaxModelCalls: 8, MaxToolCalls: 6, MaxTokens: 60000, MaxRunBytes: 262144, Deadline: 5 * time.Minute, MaxNoGain: 2}) {
		t.Errorf("budget defaults = %+v", b)
	}
	if l != (Limits{Query: 4096, PreviousTurn: 8192, Input: 12288, Draft: 16384, Observation: 8192}) {
		t.Errorf("limits defaults = %+v", l)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
}

func TestSpecExampleLoads(t *testing.T) {
	w := newWorkspace(t)
	data, err := os.ReadFile("testdata/spec.toml")
	if err != nil {
		t.Fatal(err)
	}
	file := fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), string(data))
	cfg, err := Load(LoadOptions{WorkDir: w.wd, Getenv: w.env.get, Parts: specParts})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// resolved by their shares (internal/registry's TestRelativePaths)
	if got := TableOf[pathsTable](cfg, "knowledge").Paths; !reflect.DeepEqual(got, []string{"./runbooks"}) {
		t.Errorf("knowledge.paths = %v", got)
	}
	if got := TableOf[pathsTable](cfg, "skills").Paths; !reflect.DeepEqual(got, []string{"./skills"}) {
		t.Errorf("skills.paths = %v", got)
	}
	if cfg.File != file {
		t.Errorf("File = %q, want %q", cfg.File, file)
	}
	if len(logsOf(cfg)) != 1 || len(databasesOf(cfg)) != 1 {
		t.Fatalf("logs=%d databases=%d, want 1 and 1", len(logsOf(cfg)), len(databasesOf(cfg)))
	}
	// the zone is loaded by the [[logs]] share's Decoded (its folder's TestZoneLoaded)
	lg := logsOf(cfg)[0]
	if lg.Name != "app" || lg.Format != logs.FormatAuto || lg.Timezone != "Local" ||
		lg.MaxWindow != 6*time.Hour || !reflect.DeepEqual(lg.Paths, []string{"/var/log/app/*.log", "/var/log/app/*.log.gz"}) {
		t.Errorf("logs[0] = %+v", lg)
	}
	db := databasesOf(cfg)[0]
	if db.Name != "orders" || db.Driver != sqlquery.DriverMySQL || db.MaxRows != 50 || db.Timeout != 5*time.Second ||
		db.DSN.Reveal() != "readonly:secret@tcp(127.0.0.1:3306)/orders" {
		t.Errorf("databases[0] = %+v (dsn %q)", db, db.DSN.Reveal())
	}
}

const validLog = `
[[logs]]
name = "app"
paths = ["/var/log/app/*.log"]
`

func TestFileErrors(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want []string // substrings of the error; the file path is always required too
		not  []string // substrings that must not appear
	}{
		{"unknown top-level key", "modle_name = \"x\"\n", []string{`unknown key "modle_name"`}, nil}, //nolint:misspell // the typo is the test
		{"unknown nested key with suggestion", "[model]\nnam = \"x\"\n", []string{`unknown key "model.nam"`, `did you mean "model.name"?`}, nil},
		{"unknown table", "[modle]\nname = \"x\"\n", []string{`unknown key "modle"`, `did you mean "model"?`}, nil}, //nolint:misspell // the typo is the test
		{"unknown key in [[logs]]", validLog + "[[logs]]\nname = \"b\"\npaths = [\"x\"]\nformatt = \"json\"\n", []string{`unknown key "logs[1].formatt"`, `did you mean "logs[1].format"?`}, nil},
		{"unknown key without suggestion lists valid keys", "[limits]\nzzzzzzzz = 1\n", []string{`unknown key "limits.zzzzzzzz"`, "valid keys here: query, previous_turn"}, nil},
		{"syntax error names the line", "[model]\nname = \"x\"\nnum_ctx = = 3\n", []string{":3: TOML syntax error"}, nil},
		{"unterminated string names the line", "[model]\n\nname = \"qwen\n", []string{":3: TOML syntax error"}, nil},
		{"bad duration", "[model]\nrequest_timeout = \"3 minutes\"\n", []string{`model.request_timeout = "3 minutes" in `, `not a duration, write e.g. "180s" or "3m"`}, nil},
		{"duration as integer", "[budget]\ndeadline = 300\n", []string{"budget.deadline = 300 in ", `a duration string such as "180s"`}, nil},
		{"negative duration", "[budget]\ndeadline = \"-5m\"\n", []string{`budget.deadline = "-5m" in `, "must be between 1s and 24h"}, nil},
		{"bad language", "[model]\nlanguage = \"fr\"\n", []string{`model.language = "fr" in `, "must be one of auto, zh, en"}, nil},
		{"bad log format", validLog + "[[logs]]\nname = \"b\"\npaths = [\"x\"]\nformat = \"xml\"\n", []string{`logs[1].format = "xml" in `, "must be one of json, logfmt, text, auto"}, nil},
		{"zero tool calls", "[budget]\nmax_tool_calls = 0\n", []string{"budget.max_tool_calls = 0 in ", ": must be between 1 and 100"}, nil},
		{"max_no_gain zero", "[budget]\nmax_no_gain = 0\n", []string{"budget.max_no_gain = 0 in ", "must be between 1 and 100"}, nil},
		{"num_ctx zero", "[model]\nnum_ctx = 0\n", []string{"model.num_ctx = 0 in ", "must be between 512 and"}, nil},
		{"temperature too high", "[model]\ntemperature = 2.5\n", []string{"model.temperature = 2.5 in ", "between 0 and 2"}, nil},
		{"integer given as string", "[model]\nnum_ctx = \"big\"\n", []string{`model.num_ctx = "big" in `, "must be an integer"}, nil},
		{"float for integer", "[budget]\nmax_tokens = 1.5\n", []string{"budget.max_tokens = 1.5 in ", "must be an integer"}, nil},
		{"huge integer", "[budget]\nmax_tokens = 99999999999\n", []string{"budget.max_tokens = 99999999999 in ", "out of range"}, nil},
		{"input smaller than query", "[limits]\nquery = 8192\ninput = 4096\nprevious_turn = 1024\n", []string{"limits.input in ", "4096 is smaller than limits.query (8192)"}, nil},
		{"run bytes smaller than input", "[budget]\nmax_run_bytes = 8192\n", []string{"budget.max_run_bytes in ", "8192 is smaller than limits.input (12288)"}, nil},
		{"duplicate log names", validLog + validLog, []string{`logs[1].name = "app" in `, "duplicate: logs[0] already uses this name"}, nil},
		{"missing log name", "[[logs]]\npaths = [\"x\"]\n", []string{`logs[0].name = "" in `, "missing"}, nil},
		{"bad log name", "[[logs]]\nname = \"my app\"\npaths = [\"x\"]\n", []string{`logs[0].name = "my app" in `, "letters, digits"}, nil},
		{"duplicate metrics names", "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\n[[metrics]]\nname = \"p\"\nurl = \"http://h:9091\"\n", []string{`metrics[1].name = "p" in `, "duplicate: metrics[0]"}, nil},
		{"max_window zero", "[[logs]]\nname = \"a\"\npaths = [\"x\"]\nmax_window = \"0s\"\n", []string{`logs[0].max_window = "0s" in `, "must be between 1m and 744h"}, nil},
		{"logs as a table", "[logs]\nname = \"a\"\n", []string{"logs in ", "must be an array of tables ([[logs]])"}, nil},
		{"model as a string", "model = \"qwen\"\n", []string{"model in ", "must be a table ([model])"}, nil},
		{"metrics max_points over Prometheus' limit", "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\nmax_points = 20000\n", []string{"metrics[0].max_points = 20000 in ", "between 10 and 11000"}, nil},
		{"metrics unknown key", "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\ntoken = \"x\"\n", []string{`unknown key "metrics[0].token"`}, nil},
		{"bad host scheme", "[model]\nhost = \"ftp://h:1\"\n", []string{`model.host = "ftp://h:1" in `, `scheme "ftp" not supported`}, nil},
		{"bad host port hides password", "[model]\nhost = \"http://bob:Hunter2Secret@h:99999\"\n", []string{`model.host = "http://[REDACTED]@h:99999" in `, `invalid port "99999"`}, []string{"Hunter2Secret"}},
		{"host password with slash hidden", "[model]\nhost = \"http://bob:Hun/ter2Secret@h:x\"\n", []string{"model.host = ", "invalid port"}, []string{"Hun/ter2Secret", "ter2Secret"}},
		{"empty model name", "[model]\nname = \"\"\n", []string{`model.name = "" in `, "model name"}, nil},
		{"think not bool", "[model]\nthink = \"no\"\n", []string{`model.think = "no" in `, "true or false"}, nil},
		{"dsn as an integer", "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = 5\n", []string{"databases[0].dsn = 5 in ", "must be a string"}, nil},
		{"dsn as a table", "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = { path = \"o.db\" }\n", []string{"databases[0].dsn = a table in ", "must be a string"}, []string{"unknown key"}},
		{"host as a table", "[model]\nhost = { url = \"http://h:1\" }\n", []string{"model.host = a table in ", "must be a string"}, []string{"unknown key"}},
		{"date-time value", "[model]\nname = 1979-05-27T07:32:00Z\n", []string{"model.name = a date-time in ", "must be a string"}, nil},
		{"long value is clipped", "[model]\nlanguage = \"" + strings.Repeat("x", 200) + "\"\n", []string{`model.language = "` + strings.Repeat("x", 61) + `…" in `}, []string{strings.Repeat("x", 62)}},
		{"multi-line value shows its first line only", "[model]\nlanguage = \"\"\"fr\nline2Hunter2Secret\"\"\"\n", []string{`model.language = "fr…" in `}, []string{"Hunter2Secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t)
			file := fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), tt.toml)
			cfg, err := w.load(Overrides{}, "")
			if err == nil {
				t.Fatalf("Load succeeded, want error; config:\n%s", cfg)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not *config.Error: %v", err, err)
			}
			msg := err.Error()
			for _, s := range append(tt.want, file) {
				if !strings.Contains(msg, s) {
					t.Errorf("error lacks %q:\n%s", s, msg)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(msg, s) {
					t.Errorf("error contains %q:\n%s", s, msg)
				}
			}
		})
	}
}

func TestAllProblemsReportedAtOnce(t *testing.T) {
	w := newWorkspace(t)
	fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), "[model]\nnam = 1\nlanguage = \"fr\"\n[budget]\nmax_tool_calls = 0\ndeadline = \"soon\"\n")
	_, err := w.load(Overrides{}, "")
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("want *Error, got %v", err)
	}
	// Decode problems (unknown key, bad duration) stop before range checks,
	// so the person fixes the file's shape first; both are reported.
	if len(ce.Problems) != 2 {
		t.Fatalf("problems = %d, want 2:\n%s", len(ce.Problems), err)
	}
	if !strings.HasPrefix(err.Error(), "2 configuration problems:") {
		t.Errorf("error = %q", err)
	}
	fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), "[model]\nlanguage = \"fr\"\n[budget]\nmax_tool_calls = 0\n")
	_, err = w.load(Overrides{}, "")
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("want 2 validation problems, got %v", err)
	}
}

func TestMissingExplicitFile(t *testing.T) {
	w := newWorkspace(t)
	if err := os.Mkdir(filepath.Join(w.wd, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, env string
		want            []string
	}{
		{"flag", "nope.toml", "", []string{filepath.Join(w.wd, "nope.toml"), "(from --config) does not exist", "drop --config"}},
		{"env", "", "/nonexistent/sb.toml", []string{"/nonexistent/sb.toml (from $SUPERBIZ_CONFIG) does not exist", "unset SUPERBIZ_CONFIG"}},
		{"flag beats env even when missing", "nope.toml", "/nonexistent/sb.toml", []string{"(from --config)"}},
		{"directory", "adir", "", []string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv{}
			for k, v := range w.env {
				env[k] = v
			}
			env[EnvConfig] = tt.env
			_, err := Load(LoadOptions{ConfigPath: tt.flag, WorkDir: w.wd, Getenv: env.get})
			if err == nil {
				t.Fatal("Load succeeded, want error")
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error lacks %q: %v", s, err)
				}
			}
		})
	}
}

func TestLookupOrder(t *testing.T) {
	// Each place holds a file with a distinct model name; the winner's name shows.
	places := []string{"flag", "env", "workdir", "xdg"}
	tests := []struct {
		present []string
		want    string // "" = no file, defaults
	}{
		{nil, ""},
		{[]string{"xdg"}, "xdg"},
		{[]string{"workdir"}, "workdir"},
		{[]string{"workdir", "xdg"}, "workdir"},
		{[]string{"env", "workdir", "xdg"}, "env"},
		{[]string{"env"}, "env"},
		{[]string{"flag"}, "flag"},
		{[]string{"flag", "env", "workdir", "xdg"}, "flag"},
		{[]string{"flag", "xdg"}, "flag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.present, "+"), func(t *testing.T) {
			w := newWorkspace(t)
			paths := map[string]string{
				"flag":    filepath.Join(w.wd, "conf", "flag.toml"),
				"env":     filepath.Join(w.home, "env.toml"),
				"workdir": filepath.Join(w.wd, "superbiz.toml"),
				"xdg":     filepath.Join(w.configHome, "superbiz", "config.toml"),
			}
			env := testEnv{}
			for k, v := range w.env {
				env[k] = v
			}
			flag := ""
			for _, p := range tt.present {
				fixture.WriteFile(t, paths[p], "[model]\nname = \""+p+"\"\n")
				switch p {
				case "flag":
					flag = "conf/flag.toml" // relative to the working directory
				case "env":
					env[EnvConfig] = paths["env"]
				}
			}
			cfg, err := Load(LoadOptions{ConfigPath: flag, WorkDir: w.wd, Getenv: env.get})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			wantName, wantFile := Defaults().Model.Name, ""
			if tt.want != "" {
				wantName, wantFile = tt.want, paths[tt.want]
			}
			if cfg.Model.Name != wantName || cfg.File != wantFile {
				t.Errorf("name=%q file=%q, want %q from %q (places %v)", cfg.Model.Name, cfg.File, wantName, wantFile, places)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	const fileTOML = `db = "file.db"
[model]
name = "file-model"
host = "filehost:1111"
[budget]
max_model_calls = 11
max_tool_calls = 12
max_tokens = 13000
deadline = "14m"
`
	type layer int
	const (
		none layer = iota
		file
		env
		flag
	)
	type field struct {
		name   string
		envKey string
		envVal string
		flag   func(*Overrides)
		get    func(*Config) any
		values map[layer]any // expected value when that layer is the highest present
		origin map[layer]string
		key    string
	}
	fields := []field{
		{name: "db", key: "db", envKey: EnvDB, envVal: "env.db",
			flag:   func(o *Overrides) { o.DBPath = ptr("flag.db") },
			get:    func(c *Config) any { return filepath.Base(c.DBPath) },
			values: map[layer]any{none: "superbiz.db", file: "file.db", env: "env.db", flag: "flag.db"},
			origin: map[layer]string{env: "$SUPERBIZ_DB", flag: "--db"}},
		{name: "model", key: "model.name", envKey: EnvModel, envVal: "env-model",
			flag:   func(o *Overrides) { o.Model = ptr("flag-model") },
			get:    func(c *Config) any { return c.Model.Name },
			values: map[layer]any{none: "qwen3:8b", file: "file-model", env: "env-model", flag: "flag-model"},
			origin: map[layer]string{env: "$SUPERBIZ_MODEL", flag: "--model"}},
		{name: "host", key: "model.host", envKey: envHost, envVal: "envhost",
			flag:   func(o *Overrides) { o.Host = ptr("https://flaghost") },
			get:    func(c *Config) any { return c.Model.Host.Reveal() },
			values: map[layer]any{none: "http://127.0.0.1:11434", file: "http://filehost:1111", env: "http://envhost:11434", flag: "https://flaghost:443"},
			origin: map[layer]string{env: "$OLLAMA_HOST", flag: "--host"}},
		{name: "max-model-calls", key: "budget.max_model_calls",
			flag:   func(o *Overrides) { o.MaxModelCalls = ptr(21) },
			get:    func(c *Config) any { return c.Budget.MaxModelCalls },
			values: map[layer]any{none: 8, file: 11, flag: 21},
			origin: map[layer]string{flag: "--max-model-calls"}},
		{name: "max-tool-calls", key: "budget.max_tool_calls",
			flag:   func(o *Overrides) { o.MaxToolCalls = ptr(22) },
			get:    func(c *Config) any { return c.Budget.MaxToolCalls },
			values: map[layer]any{none: 6, file: 12, flag: 22},
			origin: map[layer]string{flag: "--max-tool-calls"}},
		{name: "max-tokens", key: "budget.max_tokens",
			flag:   func(o *Overrides) { o.MaxTokens = ptr(23000) },
			get:    func(c *Config) any { return c.Budget.MaxTokens },
			values: map[layer]any{none: 60000, file: 13000, flag: 23000},
			origin: map[layer]string{flag: "--max-tokens"}},
		{name: "timeout", key: "budget.deadline",
			flag:   func(o *Overrides) { o.Timeout = ptr(24 * time.Minute) },
			get:    func(c *Config) any { return c.Budget.Deadline },
			values: map[layer]any{none: 5 * time.Minute, file: 14 * time.Minute, flag: 24 * time.Minute},
			origin: map[layer]string{flag: "--timeout"}},
	}
	for _, f := range fields {
		for _, withFile := range []bool{false, true} {
			for _, withEnv := range []bool{false, true} {
				for _, withFlag := range []bool{false, true} {
					if withEnv && f.envKey == "" {
						continue
					}
					name := f.name
					top := none
					if withFile {
						name += "/file"
						top = file
					}
					if withEnv {
						name += "/env"
						top = env
					}
					if withFlag {
						name += "/flag"
						top = flag
					}
					t.Run(name, func(t *testing.T) {
						w := newWorkspace(t)
						if withFile {
							fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), fileTOML)
						}
						if withEnv {
							w.env[f.envKey] = f.envVal
						}
						var ov Overrides
						if withFlag {
							f.flag(&ov)
						}
						cfg, err := w.load(ov, "")
						if err != nil {
							t.Fatalf("Load: %v", err)
						}
						if got := f.get(cfg); got != f.values[top] {
							t.Errorf("value = %v, want %v", got, f.values[top])
						}
						if got := cfg.Origin(f.key); got != f.origin[top] {
							t.Errorf("Origin(%q) = %q, want %q", f.key, got, f.origin[top])
						}
					})
				}
			}
		}
	}
}

func TestFlagGivenAsZeroIsNotIgnored(t *testing.T) {
	w := newWorkspace(t)
	_, err := w.load(Overrides{MaxToolCalls: ptr(0)}, "")
	if err == nil || !strings.Contains(err.Error(), "--max-tool-calls = 0: must be between 1 and 100") {
		t.Fatalf("error = %v, want the --max-tool-calls range message", err)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name string
		ov   Overrides
		env  testEnv
		want string
		not  string
	}{
		{"timeout zero", Overrides{Timeout: ptr(time.Duration(0))}, nil, `--timeout = "0s": must be between 1s and 24h`, ""},
		{"max tokens", Overrides{MaxTokens: ptr(5)}, nil, "--max-tokens = 5: must be between 1024 and 10000000", ""},
		{"max model calls", Overrides{MaxModelCalls: ptr(-1)}, nil, "--max-model-calls = -1: must be between 1 and 100", ""},
		{"empty model flag", Overrides{Model: ptr("")}, nil, `--model = "": must be a model name`, ""},
		{"empty db flag", Overrides{DBPath: ptr(" ")}, nil, `--db = "": empty`, ""},
		{"bad host flag", Overrides{Host: ptr("gopher://x")}, nil, `--host = "gopher://x": scheme "gopher" not supported`, ""},
		{"bad OLLAMA_HOST hides password", Overrides{}, testEnv{envHost: "http://u:Hunter2Secret@h:0"}, `$OLLAMA_HOST = "http://[REDACTED]@h:0": invalid port "0"`, "Hunter2Secret"},
		{"bad SUPERBIZ_NOW", Overrides{}, testEnv{EnvNow: "yesterday"}, `$SUPERBIZ_NOW = "yesterday": not an RFC 3339 time`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t)
			for k, v := range tt.env {
				w.env[k] = v
			}
			_, err := w.load(tt.ov, "")
			if err == nil {
				t.Fatal("Load succeeded, want error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, tt.want)
			}
			if tt.not != "" && strings.Contains(err.Error(), tt.not) {
				t.Errorf("error contains %q: %v", tt.not, err)
			}
		})
	}
}

func TestFixedClock(t *testing.T) {
	w := newWorkspace(t)
	w.env[EnvNow] = "2025-03-01T14:05:00+08:00"
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2025, 3, 1, 6, 5, 0, 0, time.UTC); !cfg.Now.Equal(want) {
		t.Errorf("Now = %v, want %v", cfg.Now, want)
	}
}

// The run store's path resolves against the file's directory, a flag's and
// a variable's against the working directory; the shares' paths are
// internal/registry's TestRelativePaths.
func TestRelativeDBPath(t *testing.T) {
	const body = "db = \"state/sb.db\"\n"
	t.Run("against the file's directory", func(t *testing.T) {
		w := newWorkspace(t)
		dir := filepath.Join(w.home, "etc", "superbiz")
		file := fixture.WriteFile(t, filepath.Join(dir, "my.toml"), body)
		cfg, err := w.load(Overrides{}, file)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "state", "sb.db"); cfg.DBPath != want {
			t.Errorf("db = %q, want %q", cfg.DBPath, want)
		}
	})
	t.Run("flag and env paths: against the working directory", func(t *testing.T) {
		w := newWorkspace(t)
		dir := filepath.Join(w.home, "cfg")
		file := fixture.WriteFile(t, filepath.Join(dir, "c.toml"), body)
		cfg, err := w.load(Overrides{DBPath: ptr("x/flag.db")}, file)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(w.wd, "x", "flag.db"); cfg.DBPath != want {
			t.Errorf("--db = %q, want %q", cfg.DBPath, want)
		}
		w.env[EnvDB] = "y/env.db"
		cfg, err = w.load(Overrides{}, file)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(w.wd, "y", "env.db"); cfg.DBPath != want {
			t.Errorf("$SUPERBIZ_DB = %q, want %q", cfg.DBPath, want)
		}
	})
}

func TestDefaultDBPath(t *testing.T) {
	env := testEnv{"XDG_DATA_HOME": "/data"}
	if got := DefaultDBPath(env.get); got != "/data/superbiz/superbiz.db" {
		t.Errorf("DefaultDBPath = %q", got)
	}
}

func BenchmarkLoadSpecExample(b *testing.B) {
	data, err := os.ReadFile("testdata/spec.toml")
	if err != nil {
		b.Fatal(err)
	}
	env := testEnv{"XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/config"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load(data, "/etc/superbiz.toml", "/wd", env.get, Overrides{}, nil, specParts...); err != nil {
			b.Fatal(err)
		}
	}
}
