package logs

import (
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// configured is a configuration of file superbiz.toml with the [[logs]]
// entries srcs, as a Go program builds it.
func configured(srcs ...logtool.Source) *config.Config {
	cfg := config.Defaults(Source{}.Config())
	cfg.File = "superbiz.toml"
	SetEntries(&cfg, srcs...)
	return &cfg
}

// The rules of [[logs]] entries that the tags cannot state are reported at
// load, naming the key and the file.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "bad timezone", TOML: "[[logs]]\nname = \"a\"\npaths = [\"x\"]\ntimezone = \"Mars/Olympus\"\n", Want: []string{`logs[0].timezone = "Mars/Olympus" in `, "not a known time zone"}},
		{Name: "bad timezone beside a bad value", TOML: "[[logs]]\nname = \"a\"\npaths = [\"x\"]\nmax_window = 5\n[[logs]]\nname = \"b\"\npaths = [\"x\"]\ntimezone = \"../etc/passwd\"\n", Want: []string{"logs[0].max_window = 5 in ", `logs[1].timezone = "../etc/passwd" in `, "not a known time zone"}},
		{Name: "empty timezone", TOML: "[[logs]]\nname = \"a\"\npaths = [\"x\"]\ntimezone = \"\"\n", Want: []string{`logs[0].timezone = "" in `, "not a known time zone"}},
		{Name: "log without paths", TOML: "[[logs]]\nname = \"a\"\n", Want: []string{"logs[0].paths = [] in ", "at least one"}},
		{Name: "bad glob", TOML: "[[logs]]\nname = \"a\"\npaths = [\"/var/log/[a.log\"]\n", Want: []string{"logs[0].paths[0] = ", "not a valid glob"}},
		{Name: "victorialogs without url", TOML: vl(""), Want: []string{"logs[0].url = ", "empty"}},
		{Name: "victorialogs with a files key", TOML: vl(`url = "http://127.0.0.1:9428"` + "\n" + `paths = ["/var/log/a.log"]`), Want: []string{"logs[0].paths = ", `used only with backend = "files"`}},
		{Name: "victorialogs with format", TOML: vl(`url = "http://127.0.0.1:9428"` + "\n" + `format = "json"`), Want: []string{"logs[0].format = ", `used only with backend = "files"`}},
		{Name: "victorialogs with service", TOML: vl(`url = "http://127.0.0.1:9428"` + "\n" + `service = "shop"`), Want: []string{"logs[0].service = ", "service_field"}},
		{Name: "victorialogs bad tenant", TOML: vl(`url = "http://127.0.0.1:9428"` + "\n" + `tenant = "shop"`), Want: []string{"logs[0].tenant = ", "AccountID:ProjectID"}},
		{Name: "victorialogs url with credentials", TOML: vl(`url = "http://u:p@127.0.0.1:9428"`), Want: []string{"logs[0].url = ", "credentials"}},
		{Name: "victorialogs both credentials", TOML: vl(`url = "http://127.0.0.1:9428"` + "\n" + `bearer_token_env = "T"` + "\n" + `username = "u"` + "\n" + `password_env = "P"`), Want: []string{"logs[0].bearer_token_env", "not both"}},
		{Name: "victorialogs bad backend", TOML: "[[logs]]\nname = \"a\"\nbackend = \"loki\"\n", Want: []string{"logs[0].backend", "loki"}},
		{Name: "files with a victorialogs key", TOML: "[[logs]]\nname = \"a\"\npaths = [\"/var/log/a.log\"]\nlevel_field = \"severity\"\n", Want: []string{"logs[0].level_field = ", `used only with backend = "victorialogs"`}},
		{Name: "files with a url", TOML: "[[logs]]\nname = \"a\"\npaths = [\"/var/log/a.log\"]\nurl = \"http://127.0.0.1:9428\"\n", Want: []string{"logs[0].url = ", `used only with backend = "victorialogs"`}},
	})
}

// vl is a victorialogs [[logs]] entry with the keys body adds.
func vl(body string) string {
	return "[[logs]]\nname = \"store\"\nbackend = \"victorialogs\"\ntimezone = \"UTC\"\n" + body + "\n"
}

// A victorialogs entry with its keys loads; its password comes from the
// variable password_env names, and the summary names the variable, never
// the value.
func TestVictoriaLogsConfig(t *testing.T) {
	cfg, _, err := configtest.Load(t, vl(`url = "http://127.0.0.1:9428"
tenant = "3:7"
username = "reader"
password_env = "VL_PW"
filter = '{namespace="shop"}'
level_field = "severity"`), map[string]string{"VL_PW": "vl-Secret-991"}, Source{}.Config())
	if err != nil {
		t.Fatal(err)
	}
	s := Entries(cfg)[0]
	if s.Backend != "victorialogs" || s.Secret.Reveal() != "vl-Secret-991" || s.Tenant != "3:7" {
		t.Fatalf("loaded %+v", s)
	}
	if lvl, svc := s.Fields(); lvl != "severity" || svc != "service" {
		t.Errorf("fields %s %s, want severity and the default service", lvl, svc)
	}
	lines := strings.Join(summaryLines(cfg), "\n")
	if !strings.Contains(lines, "victorialogs http://127.0.0.1:9428") || !strings.Contains(lines, "$VL_PW") || strings.Contains(lines, "vl-Secret-991") {
		t.Errorf("summary %q", lines)
	}
}

// TestCustomLayoutKeys loads [[logs]] entries with format = "custom" and
// checks that each bad key is reported at load, naming the key and the file.
func TestCustomLayoutKeys(t *testing.T) {
	const good = `pattern = '(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (?P<level>\w+) (?P<msg>.*)'` + "\n" +
		`time_layout = "2006-01-02 15:04:05"` + "\n"
	tests := []struct {
		name, body string
		wantKey    string // "" means the file loads
		wantText   string
	}{
		{"good", `format = "custom"` + "\n" + good + `sample = "2026-03-01 12:00:00 ERROR boom"`, "", ""},
		{"good strftime", `format = "custom"
pattern = '\[(?P<ts>[^\]]+)\] (?P<msg>.*)'
time_layout = "%d/%b/%Y:%H:%M:%S %z"
sample = "[10/Oct/2000:13:55:36 -0700] GET /"`, "", ""},
		{"good epoch", `format = "custom"
pattern = '(?P<ts>\d+) (?P<msg>.*)'
time_layout = "unix_ms"
sample = "1700000000123 hello"`, "", ""},
		{"missing pattern", `format = "custom"
time_layout = "2006-01-02 15:04:05"`, "logs[0].pattern", "missing"},
		{"bad regex", `format = "custom"
pattern = '(?P<ts>[0-9+) (?P<msg>.*)'
time_layout = "2006-01-02 15:04:05"`, "logs[0].pattern", "not a valid regular expression"},
		{"too long regex", `format = "custom"
pattern = '(?P<ts>\d+)(?P<msg>.*)` + strings.Repeat("x", 2100) + `'
time_layout = "unix"`, "logs[0].pattern", "more than the 2048 allowed"},
		{"no ts group", `format = "custom"
pattern = '(?P<time>\S+) (?P<msg>.*)'
time_layout = "2006-01-02 15:04:05"`, "logs[0].pattern", "no (?P<ts>…) group"},
		{"no msg group", `format = "custom"
pattern = '(?P<ts>\S+ \S+) (?P<message>.*)'
time_layout = "2006-01-02 15:04:05"`, "logs[0].pattern", "no (?P<msg>…) group"},
		{"duplicate group", `format = "custom"
pattern = '(?P<ts>\S+) (?P<msg>\S+) (?P<msg>.*)'
time_layout = "2006-01-02 15:04:05"`, "logs[0].pattern", "used twice"},
		{"missing time layout", `format = "custom"
pattern = '(?P<ts>\S+) (?P<msg>.*)'`, "logs[0].time_layout", "missing"},
		{"go layout without hour", `format = "custom"
pattern = '(?P<ts>\S+) (?P<msg>.*)'
time_layout = "2006-01-02"`, "logs[0].time_layout", "no hour"},
		{"go layout that is no layout", `format = "custom"
pattern = '(?P<ts>\S+) (?P<msg>.*)'
time_layout = "yyyy-MM-dd HH:mm:ss"`, "logs[0].time_layout", "no month"},
		{"unknown strftime directive", `format = "custom"
pattern = '(?P<ts>\S+) (?P<msg>.*)'
time_layout = "%Y-%m-%d %H:%M:%Q"`, "logs[0].time_layout", "%Q"},
		{"strftime literal digit", `format = "custom"
pattern = '(?P<ts>\S+) (?P<msg>.*)'
time_layout = "%Y-%m-%dT1%H:%M"`, "logs[0].time_layout", "unsupported literal: 1"},
		{"sample does not match", `format = "custom"` + "\n" + good + `sample = "not a log line"`, "logs[0].sample", "does not match pattern"},
		{"sample time does not parse", `format = "custom"
pattern = '(?P<ts>\S+ \S+) (?P<msg>.*)'
time_layout = "2006-01-02 15:04:05"
sample = "2026-13-45 99:00:00 boom"`, "logs[0].sample", "does not parse with time_layout"},
		{"pattern without custom", `format = "text"` + "\n" + good, "logs[0].pattern", `used only with format = "custom"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, path, err := configtest.Load(t, "[[logs]]\nname = \"app\"\npaths = [\"/var/log/app.log\"]\ntimezone = \"UTC\"\n"+tt.body+"\n", nil, Source{}.Config())
			if tt.wantKey == "" {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				if s := Entries(cfg)[0]; s.Format != logtool.FormatCustom || s.Pattern == "" {
					t.Fatalf("custom layout not kept: %+v", s)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded; want an error on %s", tt.wantKey)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantKey+" = ") || !strings.Contains(msg, path) || !strings.Contains(msg, tt.wantText) {
				t.Fatalf("error %q: want key %s, file %s and %q", msg, tt.wantKey, path, tt.wantText)
			}
		})
	}
}

// Each entry's time zone is loaded by name once the file is decoded
// (Part.Decoded), so query_logs reads stamps without a zone in it.
func TestZoneLoaded(t *testing.T) {
	cfg, _, err := configtest.Load(t, "[[logs]]\nname = \"a\"\npaths = [\"x\"]\ntimezone = \"Asia/Shanghai\"\n[[logs]]\nname = \"b\"\npaths = [\"x\"]\n", nil, Source{}.Config())
	if err != nil {
		t.Fatal(err)
	}
	es := Entries(cfg)
	if len(es) != 2 || es[0].Location == nil || es[0].Location.String() != "Asia/Shanghai" || es[1].Timezone != "Local" || es[1].Location != time.Local {
		t.Fatalf("entries %+v", es)
	}
}

// A configuration built in Go (the demo's) is checked by Validate as a
// file is by Load.
func TestValidateBuiltConfig(t *testing.T) {
	s := NewEntry()
	s.Name, s.Paths, s.Format, s.Timezone = "app", []string{"/x/*.log"}, "xml", "Mars/Olympus"
	cfg := configured(s)
	err := cfg.Validate()
	for _, want := range []string{`logs[0].format = "xml" in superbiz.toml: must be one of`, `logs[0].timezone = "Mars/Olympus" in superbiz.toml: not a known time zone`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
	s.Format, s.Timezone, s.Location = logtool.FormatJSON, "UTC", time.UTC
	SetEntries(cfg, s)
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
