package config

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

func TestParseHost(t *testing.T) {
	tests := []struct {
		in, want string
		err      string
	}{
		{"127.0.0.1:11434", "http://127.0.0.1:11434", ""},
		{"host", "http://host:11434", ""},
		{"example.com:8080", "http://example.com:8080", ""},
		{"http://h:p0rt", "", `invalid port "p0rt"`},
		{"http://h:1234", "http://h:1234", ""},
		{"http://h", "http://h:80", ""},
		{"https://h", "https://h:443", ""},
		{"https://h/ollama", "https://h:443/ollama", ""},
		{"  http://h:1  ", "http://h:1", ""},
		{":11434", "http://127.0.0.1:11434", ""},
		{"[::1]:11434", "http://[::1]:11434", ""},
		{"::1", "http://[::1]:11434", ""},
		{"http://[::1", "", "needs both brackets"},
		{"[::1", "", "needs both brackets"},
		{"http://::1]:11434", "", "needs both brackets"},
		{"0.0.0.0", "http://0.0.0.0:11434", ""},
		{"http://u:p@h:1", "http://u:p@h:1", ""},
		{"", "", "empty"},
		{"ftp://h", "", `scheme "ftp" not supported`},
		{"h:70000", "", `invalid port "70000"`},
		{"h:0", "", `invalid port "0"`},
		{"http://a b:1", "", "invalid host name"},
		{"u:Hunter2Secret@ftp://h", "", "not a URL"},
		// The rules the Ollama adapter had when it parsed hosts itself: a
		// proxy prefix loses its trailing slash, credentials are kept, a
		// query or a fragment is refused.
		{"localhost:8080", "http://localhost:8080", ""},
		{"https://example.com/ollama/", "https://example.com:443/ollama", ""},
		{"https://u:secret@proxy/x", "https://u:secret@proxy:443/x", ""},
		{"http://x:1/?a=b", "", "query or a fragment"},
		{"http://x:1#top", "", "query or a fragment"},
		{"http://u:Hunter2Secret@x/p?q=1", "", "query or a fragment"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			h, err := ParseHost(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseHost(%q) error = %v, want %q", tt.in, err, tt.err)
				}
				if strings.Contains(err.Error(), "Hunter2Secret") {
					t.Errorf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseHost(%q): %v", tt.in, err)
			}
			if h.Reveal() != tt.want {
				t.Errorf("ParseHost(%q) = %q, want %q", tt.in, h.Reveal(), tt.want)
			}
		})
	}
}

// secretConfig is a loaded config holding a password in a DSN and in the host.
func secretConfig(t *testing.T) *Config {
	t.Helper()
	w := newWorkspace(t)
	fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), `[model]
host = "https://ops:HostPassw0rdX@ollama.internal/api-gw"
[[databases]]
name = "orders"
driver = "mysql"
dsn = "readonly:DsnPassw0rdX@tcp(127.0.0.1:3306)/orders?timeout=2s"
[[databases]]
name = "odd"
driver = "mysql"
dsn = "u@ser:Pa@ss/Wo:rdX@tcp(db:3306)/shop"
[[databases]]
name = "pgurl"
driver = "postgres"
dsn = "postgres://ro:PgUrlPassw0rdX@db.internal:5432/shop?sslmode=require&application_name=superbiz&sslpassword=PgKeyPassX"
[[databases]]
name = "pgkw"
driver = "postgres"
dsn = "host=db.internal port=5432 user=ro password='Pg Kw\\'Passw0rdX' dbname=shop sslmode=require"
`)
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatal(err)
	}
	// a [[logs]] entry's credential, which its share reads at load (Resolve)
	vl := defaultsOf[logs.Source]()
	vl.Name, vl.Backend, vl.URL, vl.BearerTokenEnv, vl.Secret = "store", logs.BackendVictoriaLogs, "http://127.0.0.1:9428", "VL_TOKEN", NewSecret("VlTokPassw0rdX")
	SetTable(cfg, "logs", []logs.Source{vl})
	return cfg
}

var secrets = []string{"VlTokPassw0rdX", "HostPassw0rdX", "DsnPassw0rdX", "Pa@ss/Wo:rdX", "Wo:rdX", "PgUrlPassw0rdX", "PgKeyPassX", "Kw\\'Passw0rdX", "Passw0rdX"}

func TestRedactedForms(t *testing.T) {
	cfg := secretConfig(t)
	if got, want := databasesOf(cfg)[0].DSN.String(), "readonly:[REDACTED]@tcp(127.0.0.1:3306)/orders?timeout=2s"; got != want {
		t.Errorf("DSN.String() = %q, want %q", got, want)
	}
	if got, want := databasesOf(cfg)[1].DSN.String(), "u@ser:[REDACTED]@tcp(db:3306)/shop"; got != want {
		t.Errorf("DSN.String() = %q, want %q", got, want)
	}
	if got, want := databasesOf(cfg)[2].DSN.String(), "postgres://ro:[REDACTED]@db.internal:5432/shop?application_name=superbiz&sslmode=require&sslpassword=[REDACTED]"; got != want {
		t.Errorf("DSN.String() = %q, want %q", got, want)
	}
	if got, want := databasesOf(cfg)[3].DSN.String(), "host=db.internal port=5432 user=ro password=[REDACTED] dbname=shop sslmode=require"; got != want {
		t.Errorf("DSN.String() = %q, want %q", got, want)
	}
	if got := databasesOf(cfg)[2].DSN.Reveal(); !strings.Contains(got, "PgUrlPassw0rdX") {
		t.Errorf("Reveal() = %q lost the password", got)
	}
	if got, want := cfg.Model.Host.String(), "https://ops:[REDACTED]@ollama.internal:443/api-gw"; got != want {
		t.Errorf("HostURL.String() = %q, want %q", got, want)
	}
	if got := databasesOf(cfg)[0].DSN.Reveal(); !strings.Contains(got, "DsnPassw0rdX") {
		t.Errorf("Reveal() = %q lost the password", got)
	}
	if got := cfg.Model.Host.Reveal(); got != "https://ops:HostPassw0rdX@ollama.internal:443/api-gw" {
		t.Errorf("Reveal() = %q", got)
	}
	nopw, err := sqlquery.NewDSN(sqlquery.DriverMySQL, "ro@tcp(h:3306)/d")
	if err != nil {
		t.Fatal(err)
	}
	if nopw.String() != "ro@tcp(h:3306)/d" {
		t.Errorf("DSN without password = %q, want it unchanged", nopw.String())
	}
}

func TestNoSecretUnderAnyFormatting(t *testing.T) {
	cfg := secretConfig(t)
	values := map[string]any{
		"config":      *cfg,
		"*config":     cfg,
		"dsn":         databasesOf(cfg)[0].DSN,
		"*dsn":        &databasesOf(cfg)[0].DSN,
		"host":        cfg.Model.Host,
		"database":    databasesOf(cfg)[0],
		"databases":   databasesOf(cfg),
		"model":       cfg.Model,
		"struct{dsn}": struct{ D sqlquery.DSN }{databasesOf(cfg)[1].DSN},
		"pg url dsn":  databasesOf(cfg)[2].DSN,
		"pg kw dsn":   databasesOf(cfg)[3].DSN,
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%20s", "%-40v", "%d", "%T %v"}
	for name, v := range values {
		var outs []string
		for _, verb := range verbs {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
		outs = append(outs, fmt.Sprint(v), fmt.Sprintln(v))
		b1, err := stdjson.Marshal(v)
		if err != nil {
			t.Fatalf("%s: encoding/json: %v", name, err)
		}
		outs = append(outs, string(b1))
		// json/v2 refuses a bare time.Duration by design; Config, DSN and
		// HostURL encode themselves and must work under it.
		switch name {
		case "config", "*config", "dsn", "*dsn", "host", "struct{dsn}", "pg url dsn", "pg kw dsn":
			b2, err := jsonv2.Marshal(v)
			if err != nil {
				t.Fatalf("%s: json v2: %v", name, err)
			}
			outs = append(outs, string(b2))
		}
		var logs bytes.Buffer
		slog.New(slog.NewTextHandler(&logs, nil)).Info("cfg", "v", v)
		slog.New(slog.NewJSONHandler(&logs, nil)).Info("cfg", "v", v)
		outs = append(outs, logs.String())
		for i, out := range outs {
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("%s output %d leaks %q:\n%s", name, i, s, out)
				}
			}
		}
	}
	// Hex of the redacted text, not of the secret.
	if got := fmt.Sprintf("%x", databasesOf(cfg)[0].DSN); strings.Contains(got, fmt.Sprintf("%x", "DsnPassw0rdX")) {
		t.Errorf("%%x leaks the password in hex: %s", got)
	}
	if got := fmt.Sprintf("%#v", databasesOf(cfg)[0].DSN); got != `sqlquery.DSN("readonly:[REDACTED]@tcp(127.0.0.1:3306)/orders?timeout=2s")` {
		t.Errorf("%%#v = %s", got)
	}
}

func TestNewDSNErrorsNeverEchoTheDSN(t *testing.T) {
	const pw = "Hunter2Secret"
	bad := []string{
		"u:" + pw + "@tcp(h:1)",
		"u:" + pw + "@h:3306/db",
		"u:" + pw + "@tcp(h:1/db",
		"u:" + pw + "@tcp(h:1)/db?parseTime=" + pw,
		"u:" + pw + "@tcp(h:1)/db?tls=" + pw,
		"u:" + pw + "@tcp(h:1)/db?x=%zz" + pw,
		"u:" + pw + "@tcp(h:1)/%zz" + pw,
		"u:" + pw + "@tcp(h:1)/db?serverPubKey=" + pw,
		"u:" + pw + "@tcp(h:1)/db?timeout=" + pw,
		"u:" + pw + "@tcp(h:1)/db?connectionAttributes=" + pw,
		"u:" + pw + "@unix/db",
		"u:" + pw,
		"u:" + pw + "(0)/",
		"u:" + pw + "(h:1)/db",
	}
	for _, raw := range bad {
		if _, err := sqlquery.NewDSN(sqlquery.DriverMySQL, raw); err == nil {
			// Accepted is fine for some shapes; the point is no leak when refused.
			continue
		} else if strings.Contains(err.Error(), pw) {
			t.Errorf("sqlquery.NewDSN(%q) error leaks the password: %v", raw, err)
		}
	}
	for _, raw := range []string{
		"postgres://u:" + pw + "@h:notaport/db",
		"postgres://u:" + pw + "@h/db?sslmode=" + pw,
		"host=h password=" + pw + " port=" + pw,
		"host=h password='" + pw,
		"postgres://u:" + pw + "@h/db?connect_timeout=" + pw,
	} {
		if _, err := sqlquery.NewDSN(sqlquery.DriverPostgres, raw); err == nil {
			t.Errorf("sqlquery.NewDSN(postgres) accepted %q", raw)
		} else if strings.Contains(err.Error(), pw) {
			t.Errorf("sqlquery.NewDSN(postgres, %q) error leaks the password: %v", raw, err)
		}
	}
	for _, raw := range []string{"u:" + pw + "@tcp(h:1)", "u:" + pw + "(0)/", "u:" + pw + "@udp(h:1)/d"} {
		if _, err := sqlquery.NewDSN(sqlquery.DriverMySQL, raw); err == nil {
			t.Errorf("NewDSN accepted %q", raw)
		}
	}
}
