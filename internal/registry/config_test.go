package registry

import (
	"encoding/json"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	dbsource "github.com/superbiz/superbiz/internal/integration/databases"
	kubesource "github.com/superbiz/superbiz/internal/integration/kubernetes"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/integration/playbooks"
	"github.com/superbiz/superbiz/internal/integration/runbooks"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/goldenfile"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// load writes body as ./superbiz.toml of a fresh working directory and
// loads it the way every command does (Load), with XDG_DATA_HOME and HOME
// in the test's directory and env beside them. It returns the working
// directory and the data directory too.
func load(t *testing.T, body string, env map[string]string) (cfg *config.Config, wd, data string, err error) {
	t.Helper()
	root := t.TempDir()
	wd, data = filepath.Join(root, "wd"), filepath.Join(root, "data")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "superbiz.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": filepath.Join(root, "config"), "HOME": root}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err = Load(config.LoadOptions{WorkDir: wd, Getenv: func(k string) string { return vars[k] }})
	return cfg, wd, data, err
}

// The summary of SPEC's example file: config's own tables' lines, then
// every source's, its share's Summary, in registry order. The golden file
// holds the lines of the tables the example sets; a source it leaves
// unset says so in one line, `<table>: none configured` (or says
// nothing), so a new source needs no line in the golden. It never shows
// the DSN's password.
func TestSpecExampleSummary(t *testing.T) {
	body, err := os.ReadFile("../config/testdata/spec.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, wd, data, err := load(t, string(body), nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var set map[string]any
	if _, err := toml.Decode(string(body), &set); err != nil {
		t.Fatal(err)
	}
	all := cfg.Summary()
	var sources, shown []string
	for _, p := range Parts() {
		if p.Schema == nil || p.Summary == nil {
			continue // a provider's line is [model]'s, among config's own
		}
		lines := p.Summary(cfg)
		sources = append(sources, lines...)
		if _, ok := set[p.Table]; ok {
			shown = append(shown, lines...)
			continue
		}
		if len(lines) > 0 && !slices.Equal(lines, []string{p.Table + ": none configured"}) {
			t.Errorf("the summary of [%s], which SPEC's example leaves unset, is %q, want %q (or no line); or set the table in internal/config/testdata/spec.toml", p.Table, lines, p.Table+": none configured")
		}
	}
	own, tail := all[:max(0, len(all)-len(sources))], all[max(0, len(all)-len(sources)):]
	if !slices.Equal(tail, sources) {
		t.Fatalf("the summary does not end with every source's lines in registry order:\n%s\nwant the end\n%s", strings.Join(all, "\n"), strings.Join(sources, "\n"))
	}
	got := strings.Join(slices.Concat(own, shown), "\n") + "\n"
	got = strings.ReplaceAll(got, wd, "$WD")
	got = strings.ReplaceAll(got, data, "$XDG_DATA_HOME")
	goldenfile.Check(t, "spec.summary.golden", []byte(got))
	if strings.Contains(got, "secret") {
		t.Errorf("summary leaks the DSN password:\n%s", got)
	}
}

// [alerts] and [[metrics]] share one HTTPAuth: the same keys decode into
// it, the JSON view keeps them flat in the table, and the summary describes
// them in the same words.
func TestHTTPAuthSharedByAlertsAndMetrics(t *testing.T) {
	cfg, _, _, err := load(t, "[alerts]\nurl = \"http://am:9093\"\nusername = \"oncall\"\npassword_env = \"AM_PASSWORD\"\n"+
		"[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\nusername = \"oncall\"\npassword_env = \"AM_PASSWORD\"\n", nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := config.HTTPAuth{Username: "oncall", PasswordEnv: "AM_PASSWORD"}
	if alertsource.Of(cfg).HTTPAuth != want || metricsource.Entries(cfg)[0].HTTPAuth != want {
		t.Errorf("auth = %+v and %+v, want %+v", alertsource.Of(cfg).HTTPAuth, metricsource.Entries(cfg)[0].HTTPAuth, want)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"alerts":{"url":"http://am:9093","bearer_token_env":"","username":"oncall","password_env":"AM_PASSWORD","timeout":"10s"}`) {
		t.Errorf("JSON view of [alerts]: %s", b)
	}
	for _, line := range []string{`alerts: http://am:9093 (auth basic "oncall" with the password from $AM_PASSWORD, timeout 10s)`, `auth basic "oncall" with the password from $AM_PASSWORD, NOT SET)`} {
		if !strings.Contains(cfg.String(), line) {
			t.Errorf("summary lacks %q:\n%s", line, cfg)
		}
	}
}

// The summary lines of the integrations show the DSN and the host with
// their passwords masked.
func TestSummaryMasksPasswords(t *testing.T) {
	cfg, _, _, err := load(t, `[model]
host = "https://ops:HostPassw0rdX@ollama.internal/api-gw"
[[databases]]
name = "orders"
driver = "mysql"
dsn = "readonly:DsnPassw0rdX@tcp(127.0.0.1:3306)/orders?timeout=2s"
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	summary := strings.Join(cfg.Summary(), "\n")
	for _, want := range []string{"database orders: mysql readonly:[REDACTED]@tcp(127.0.0.1:3306)/orders?timeout=2s", "https://ops:[REDACTED]@ollama.internal:443/api-gw"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(summary, "Passw0rdX") {
		t.Errorf("summary shows a password:\n%s", summary)
	}
}

// Every example of the starter file, uncommented, loads under every
// integration's rules (the [model] block is its provider choice, which
// internal/config's tests load either way).
func TestStarterExamplesLoad(t *testing.T) {
	code := regexp.MustCompile(`^# (\[|[a-z_]+ = )`)
	var lines []string
	n := 0
	inModel := false
	for line := range strings.Lines(config.Starter()) {
		if strings.HasPrefix(line, "[") {
			inModel = line == "[model]\n"
		}
		if code.MatchString(line) && !inModel {
			line = strings.TrimPrefix(line, "# ")
			n++
		}
		lines = append(lines, line)
	}
	if n < 15 {
		t.Fatalf("only %d commented example lines found", n)
	}
	cfg, _, _, err := load(t, strings.Join(lines, ""), map[string]string{"PROM_TOKEN": "t"})
	if err != nil {
		t.Fatalf("Load of the uncommented starter: %v", err)
	}
	if len(logsource.Entries(cfg)) != 1 || len(dbsource.Entries(cfg)) != 3 || len(metricsource.Entries(cfg)) != 1 || !alertsource.Configured(cfg) {
		t.Errorf("uncommented starter configures too little: %v", cfg.Summary())
	}
	if dbs := dbsource.Entries(cfg); len(dbs) == 3 && (dbs[0].Driver != sqlquery.DriverSQLite || dbs[2].Driver != sqlquery.DriverPostgres) {
		t.Errorf("database drivers %q, %q, want the SQLite example first and the PostgreSQL one last", dbs[0].Driver, dbs[2].Driver)
	}
}

// The starter file as `config init` writes it configures no source: its
// examples are commented out.
func TestStarterConfiguresNoSource(t *testing.T) {
	cfg, _, _, err := load(t, config.Starter(), nil)
	if err != nil {
		t.Fatalf("Load of the starter: %v", err)
	}
	if len(logsource.Entries(cfg))+len(dbsource.Entries(cfg))+len(metricsource.Entries(cfg)) != 0 || alertsource.Configured(cfg) {
		t.Errorf("starter configures a source: %v", cfg.Summary())
	}
}

// Each share of the configuration belongs to a table the configuration
// declares, and Defaults validates with every share.
func TestPartsBelongToDeclaredTables(t *testing.T) {
	var tables []string
	for _, k := range config.Keys(Parts()...) {
		name, _, _ := strings.Cut(k, ".")
		tables = append(tables, strings.TrimSuffix(name, "[]"))
	}
	for _, p := range Parts() {
		if !slices.Contains(tables, p.Table) {
			t.Errorf("a share belongs to %q, which is no table of the configuration", p.Table)
		}
	}
	cfg := Defaults()
	if err := cfg.Validate(); err != nil {
		t.Errorf("defaults do not validate with every share: %v", err)
	}
	if got := len(cfg.Summary()); got < 10 {
		t.Errorf("defaults' summary has %d lines, want every table's:\n%s", got, cfg)
	}
}

// Each share resolves its own file paths (config.Part.Paths) against the
// configuration file's directory, "~/" against $HOME: runbooks, playbooks,
// log globs, a kubeconfig, SQLite files; an empty list stays empty.
func TestRelativePaths(t *testing.T) {
	const body = `[knowledge]
paths = ["./runbooks", "/abs/kb", "~/kb"]
[skills]
paths = ["skills"]
[[logs]]
name = "app"
paths = ["logs/*.log", "/var/log/x.log"]
[[databases]]
name = "local"
driver = "sqlite"
dsn = "data/orders.db"
[[databases]]
name = "uri"
driver = "sqlite"
dsn = "file:../other.db"
[[kubernetes]]
name = "prod"
kubeconfig = "kube/config"
`
	root := t.TempDir()
	home, wd := filepath.Join(root, "home"), filepath.Join(root, "wd")
	dir := filepath.Join(home, "etc", "superbiz")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "my.toml")
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_DATA_HOME": filepath.Join(root, "data"), "XDG_CONFIG_HOME": filepath.Join(root, "config"), "HOME": home}
	cfg, err := Load(config.LoadOptions{ConfigPath: file, WorkDir: wd, Getenv: func(k string) string { return vars[k] }})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"knowledge.paths", runbooks.Paths(cfg), []string{filepath.Join(dir, "runbooks"), "/abs/kb", filepath.Join(home, "kb")}},
		{"skills.paths", playbooks.Paths(cfg), []string{filepath.Join(dir, "skills")}},
		{"logs[0].paths", logsource.Entries(cfg)[0].Paths, []string{filepath.Join(dir, "logs", "*.log"), "/var/log/x.log"}},
		{"databases[0].dsn", dbsource.Entries(cfg)[0].DSN.Reveal(), filepath.Join(dir, "data", "orders.db")},
		{"databases[1].dsn", dbsource.Entries(cfg)[1].DSN.Reveal(), filepath.Join(home, "etc", "other.db")},
		{"kubernetes[0].kubeconfig", kubesource.Entries(cfg)[0].Kubeconfig, filepath.Join(dir, "kube", "config")},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	t.Run("no file: against the working directory", func(t *testing.T) {
		cfg, wd, _, err := load(t, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{filepath.Join(wd, "runbooks")}; !reflect.DeepEqual(runbooks.Paths(cfg), want) {
			t.Errorf("knowledge = %v, want %v", runbooks.Paths(cfg), want)
		}
	})
	t.Run("empty knowledge list stays empty", func(t *testing.T) {
		cfg, _, _, err := load(t, "[knowledge]\npaths = []\n", nil)
		if err != nil {
			t.Fatal(err)
		}
		if ps := runbooks.Paths(cfg); len(ps) != 0 {
			t.Errorf("knowledge = %v, want none", ps)
		}
	})
}

// Each provider's share declares the variable its own clients read
// (config.Part.Env), which sets its server key between the file and the
// flags, and names it in the flags' help (Config.EnvOf).
func TestProviderVariables(t *testing.T) {
	for _, tt := range []struct{ provider, key, env, url, want string }{
		{"ollama", "model.host", "OLLAMA_HOST", "envhost", "http://envhost:11434"},
		{"openai", "model.url", "OPENAI_BASE_URL", "http://10.0.0.8:8000/v1", "http://10.0.0.8:8000/v1"},
	} {
		cfg, _, _, err := load(t, "[model]\nprovider = \""+tt.provider+"\"\n", map[string]string{tt.env: tt.url})
		if err != nil {
			t.Fatalf("%s: %v", tt.provider, err)
		}
		if cfg.Model.Endpoint() != tt.want || cfg.Origin(tt.key) != "$"+tt.env || cfg.EnvOf(tt.key) != tt.env {
			t.Errorf("%s: %s = %q from %q (EnvOf %q), want %q from $%s", tt.provider, tt.key, cfg.Model.Endpoint(), cfg.Origin(tt.key), cfg.EnvOf(tt.key), tt.want, tt.env)
		}
	}
}
