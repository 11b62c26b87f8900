package cmd

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"
)

// TestOneMarkerEverySink: a secret that reaches the user through each kind
// of sink — a configured value in doctor's summary, a SQL cell (a secret
// column, and a secret member of a JSON cell), a header in a log entry, and
// plain text — is shown as egress.Marker, never as itself nor under another
// marker. A sink that masks by itself (config's old "***") fails here.
func TestOneMarkerEverySink(t *testing.T) {
	const (
		hostPw   = "HostPw_sink_41"
		cellPw   = "CellPw_sink_42"
		memberTk = "MemberTk_sink_43"
		headerTk = "HeaderTk_sink_44"
		textPw   = "TextPw_sink_45"
	)
	dir := t.TempDir()
	env := diagnoseEnv(t)
	env["SUPERBIZ_NOW"] = "2026-03-01T12:00:00Z"

	line, err := json.Marshal(map[string]any{
		"ts": "2026-03-01T11:50:00Z", "level": "ERROR", "service": "billing",
		"msg":     "login failed with password=" + textPw,
		"headers": map[string]string{"Authorization": headerTk, "Accept": "text/html"},
	})
	if err != nil {
		t.Fatal(err)
	}
	fixture.WriteFile(t, filepath.Join(dir, "logs", "app.log"), string(line)+"\n")

	db, err := sql.Open("sqlite", filepath.Join(dir, "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password TEXT, prefs TEXT)",
		`INSERT INTO users VALUES (1, 'bob', '` + cellPw + `', '{"theme":"dark","api":{"token":"` + memberTk + `"}}')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, `[[logs]]
name = "app"
paths = ["./logs/*.log"]
format = "json"
timezone = "UTC"

[[databases]]
name = "shop"
driver = "sqlite"
dsn = "./shop.db"
`)
	closed := strings.TrimPrefix(testenv.ClosedURL(t), "http://")

	for _, tc := range []struct {
		sink    string
		env     map[string]string
		args    []string
		secrets []string
		// shown is what must appear: the secret's place holding the marker.
		shown []string
	}{
		{"configured URL (doctor's model line)", map[string]string{"OLLAMA_HOST": "http://ops:" + hostPw + "@" + closed},
			[]string{"doctor"}, []string{hostPw}, []string{"http://ops:" + egress.Marker + "@" + closed}},
		{"SQL cells", nil,
			[]string{"-o", "json", "tools", "call", "query_mysql", `{"sql":"SELECT name, password, prefs FROM users"}`},
			[]string{cellPw, memberTk}, []string{`"` + egress.Marker + `"`, `\"token\":\"` + egress.Marker + `\"`}},
		{"header and text in a log entry", nil,
			[]string{"-o", "json", "tools", "call", "query_logs", `{"since":"1h"}`},
			[]string{headerTk, textPw}, []string{`"headers.Authorization":"` + egress.Marker + `"`, "password=" + egress.Marker}},
	} {
		t.Run(tc.sink, func(t *testing.T) {
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			for k, v := range tc.env {
				e[k] = v
			}
			_, out, errOut := cli(t, e, append([]string{"--config", cfg}, tc.args...)...)
			all := out + errOut
			leaked := 0
			for _, s := range tc.secrets {
				if strings.Contains(all, s) {
					leaked++
					t.Errorf("secret %q shown:\n%s", s, all)
				}
			}
			reliability.Record(t, reliability.SectionSecrets, "one marker ([REDACTED]) for "+tc.sink, map[string]any{"planted": len(tc.secrets), "leaked": leaked})
			for _, s := range tc.shown {
				if !strings.Contains(all, s) {
					t.Errorf("want %q in the output:\n%s", s, all)
				}
			}
			for _, other := range []string{"***", "xxxxx", "<redacted>", "[redacted]"} {
				if strings.Contains(all, other) {
					t.Errorf("a second marker (%s) in the output:\n%s", other, all)
				}
			}
		})
	}
}
