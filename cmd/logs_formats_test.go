package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolsCallEverydayFormats: through `superbiz tools call query_logs`,
// as a user runs it, every everyday-format fixture (testdata/logs/formats)
// is read by format auto and its planted errors counted exactly; a level
// filter over a window whose entries carry no level the layout read answers
// coverage partial, never a confident "no errors".
func TestToolsCallEverydayFormats(t *testing.T) {
	cases := []struct {
		file, level string
		count       int
		coverage    string
	}{
		{"postgres.log", "ERROR", 2, "data"},
		{"lambda.log", "ERROR", 2, "data"},
		{"envoy.log", "ERROR", 2, "data"},
		{"gunicorn.log", "ERROR", 2, "data"},
		{"ruby_logger.log", "ERROR", 2, "data"},
		{"redis.log", "WARN", 2, "data"},
		{"elasticsearch.log", "ERROR", 2, "data"},
		{"mysql.log", "ERROR", 2, "data"},
		{"kafka.log", "ERROR", 2, "data"},
		{"journal_short_iso.log", "ERROR", 2, "partial"},
		{"spring_boot2.log", "ERROR", 2, "data"},
		{"spring_boot3.log", "ERROR", 2, "data"},
		{"caddy.json", "ERROR", 2, "data"},
		{"zap.json", "ERROR", 2, "data"},
		{"zap_console.log", "ERROR", 2, "data"},
		{"pino.json", "ERROR", 2, "data"},
		{"bunyan.json", "ERROR", 2, "data"},
		{"serilog.json", "ERROR", 2, "data"},
		{"mongodb.json", "ERROR", 2, "data"},
		{"haproxy.log", "ERROR", 2, "partial"},
		{"traefik.log", "ERROR", 2, "data"},
		{"nginx_timing.log", "ERROR", 2, "data"},
		{"python.log", "ERROR", 2, "data"},
		{"nginx_error.log", "ERROR", 2, "data"},
	}
	env := diagnoseEnv(t)
	dir := t.TempDir()
	// stamps without a year take the year of the file's last write
	mtime := time.Date(2026, 3, 15, 16, 0, 0, 0, time.UTC)
	var cfg strings.Builder
	cfg.WriteString("[knowledge]\npaths = []\n")
	for i, c := range cases {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "logs", "formats", c.file))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&cfg, "\n[[logs]]\nname = \"f%d\"\npaths = [%q]\ntimezone = \"UTC\"\n", i, p)
	}
	cfgPath := filepath.Join(dir, "superbiz.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env["SUPERBIZ_CONFIG"] = cfgPath
	for i, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			in := fmt.Sprintf(`{"source":"f%d","start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","level":%q}`, i, c.level)
			code, out, errOut := cli(t, env, "tools", "call", "-o", "json", "query_logs", in)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			o := obsOf(t, out)
			res, _ := o["result"].(map[string]any)
			if o["evidence_status"] != "EVIDENCE_FOUND" || res["matched"] != float64(c.count) || res["coverage"] != c.coverage {
				t.Fatalf("%s: %v matched %v coverage %v, want %d and %s\n%s", c.level, o["evidence_status"], res["matched"], res["coverage"], c.count, c.coverage, out)
			}
		})
	}
}
