package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/goldenfile"
)

// customLogsWorkspace writes a config whose sources read the fixtures under
// testdata/logs: billing with a custom layout from the README, mystery
// (auto) and plain (format text) on files without a single timestamp.
func customLogsWorkspace(t *testing.T) (env map[string]string, dir string) {
	t.Helper()
	dir = t.TempDir()
	env = diagnoseEnv(t)
	env["SUPERBIZ_NOW"] = "2026-03-01T12:00:00Z"
	for _, f := range []string{"billing.log", "mystery.log", "notime.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "logs", f))
		if err != nil {
			t.Fatal(err)
		}
		fixture.WriteFile(t, filepath.Join(dir, "logs", f), string(b))
	}
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, `[knowledge]
paths = []

[[logs]]
name = "billing"
paths = ["./logs/billing.log"]
format = "custom"
timezone = "UTC"
pattern = '(?P<ts>\S+ \S+) \| (?P<level>\w+) \| (?P<service>[\w-]+) \| req=(?P<req>\d+) \| (?P<msg>.*)'
time_layout = "%Y-%m-%d %H:%M:%S,%L"
sample = "2026-03-01 12:00:00,123 | ERROR | payments | req=42 | card declined"

[[logs]]
name = "mystery"
paths = ["./logs/mystery.log"]
timezone = "UTC"

[[logs]]
name = "plain"
paths = ["./logs/notime.txt"]
format = "text"
timezone = "UTC"
`)
	env["SUPERBIZ_CONFIG"] = cfg
	return env, dir
}

// TestQueryLogsCustomLayoutFromConfig runs query_logs through `tools call`
// on a source read with the config's own pattern and strftime layout: time
// window, level and service filters, fields, continuation lines, masking,
// and the unparsed count (a line whose ts does not parse, a banner line).
func TestQueryLogsCustomLayoutFromConfig(t *testing.T) {
	env, _ := customLogsWorkspace(t)
	tests := []struct {
		name, input       string
		matched, unparsed float64
		first             string // in the newest entry's message
	}{
		{"all", `{"source":"billing","since":"1h"}`, 4, 2, "ledger write timeout"},
		{"level", `{"source":"billing","since":"1h","level":"ERROR"}`, 2, 1, "ledger write timeout"},
		{"service", `{"source":"billing","since":"1h","service":"payments"}`, 2, 1, "retrying charge"},
		{"contains", `{"source":"billing","since":"1h","contains":"declined"}`, 1, 0, "at com.shop.Pay.charge(Pay.java:42)"},
		{"window", `{"source":"billing","start":"2026-03-01T11:51:00Z","end":"2026-03-01T11:53:00Z"}`, 2, 2, "balance updated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cli(t, env, "tools", "call", "-o", "json", "query_logs", tt.input)
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}
			o := obsOf(t, out)
			res, _ := o["result"].(map[string]any)
			if o["evidence_status"] != "EVIDENCE_FOUND" || res["matched"] != tt.matched {
				t.Fatalf("status %v matched %v, want %v:\n%s", o["evidence_status"], res["matched"], tt.matched, out)
			}
			if got, _ := res["unparsed"].(float64); got != tt.unparsed {
				t.Errorf("unparsed %v, want %v:\n%s", got, tt.unparsed, out)
			}
			entries, _ := res["entries"].([]any)
			e, _ := entries[0].(map[string]any)
			if msg, _ := e["message"].(string); !strings.Contains(msg, tt.first) {
				t.Errorf("newest entry %v, want its message to hold %q", e, tt.first)
			}
			for _, x := range entries {
				e := x.(map[string]any)
				f, _ := e["fields"].(map[string]any)
				if e["level"] == "" || e["service"] == "" || f["req"] == nil {
					t.Errorf("entry without level, service or the req field: %v", e)
				}
			}
			if strings.Contains(out, "hunter2") || strings.Contains(out, "99:99:99") {
				t.Errorf("a secret or the unparsed line leaked:\n%s", out)
			}
		})
	}
}

// TestQueryLogsNoLayoutIsError: a source whose only file no layout reads is
// an ERROR naming the file and what was tried, never NO_EVIDENCE; the same
// for format = "text" on a file without timestamps.
func TestQueryLogsNoLayoutIsError(t *testing.T) {
	env, _ := customLogsWorkspace(t)
	for _, tt := range []struct{ source, file, tried string }{
		{"mystery", "mystery.log", "tried format auto: layouts docker_json, json, otlp_batch, cri, logfmt, ras, hpc, syslog"},
		{"plain", "notime.txt", "tried format text"},
	} {
		t.Run(tt.source, func(t *testing.T) {
			code, out, errOut := cli(t, env, "tools", "call", "-o", "json", "query_logs", `{"source":"`+tt.source+`","since":"1h"}`)
			o := obsOf(t, out)
			if code != ExitUnavailable || o["evidence_status"] != "ERROR" || o["error_code"] != "UNAVAILABLE" {
				t.Fatalf("exit %d, observation %v; want exit 4, ERROR UNAVAILABLE\nstderr %s", code, o, errOut)
			}
			if !strings.Contains(errOut, tt.file) || !strings.Contains(errOut, tt.tried) {
				t.Errorf("stderr does not name %s and %q:\n%s", tt.file, tt.tried, errOut)
			}
		})
	}
}

// TestLogsInspectGolden: `logs inspect` shows the layout, the share placed
// in time, the range and the first entries as query_logs returns them.
func TestLogsInspectGolden(t *testing.T) {
	env, dir := customLogsWorkspace(t)
	for _, tt := range []struct {
		file string
		args []string
		code int
	}{
		{"logs-inspect.golden", []string{"logs", "inspect", "billing", "--entries", "3"}, ExitOK},
		{"logs-inspect.json.golden", []string{"logs", "inspect", "billing", "--entries", "2", "-o", "json"}, ExitOK},
		{"logs-inspect-unreadable.golden", []string{"logs", "inspect", "plain"}, ExitFailed},
	} {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := cli(t, env, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.code, out, errOut)
			}
			goldenfile.Check(t, tt.file, []byte(strings.ReplaceAll(out, dir, "$DIR")))
		})
	}
}

// TestLogsInspectUsage: an unknown source is a usage error naming the
// configured ones; --entries is bounded.
func TestLogsInspectUsage(t *testing.T) {
	env, _ := customLogsWorkspace(t)
	code, _, errOut := cli(t, env, "logs", "inspect", "nope")
	if code != ExitUsage || !strings.Contains(errOut, `unknown log source "nope"; valid: billing, mystery, plain`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = cli(t, env, "logs", "inspect", "billing", "--entries", "0")
	if code != ExitUsage || !strings.Contains(errOut, "--entries must be between 1 and 100") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestDoctorLogSourceSummary: doctor says per source how its files read.
func TestDoctorLogSourceSummary(t *testing.T) {
	env, _ := customLogsWorkspace(t)
	_, out, _ := cli(t, env, "doctor")
	for _, want := range []string{
		"logs billing", "1 file(s) match; layout custom (1); 4 of 9 lines (44.4%) placed in time, 3 (33.3%) glued as continuation lines; 2026-03-01T11:50:00.123Z .. 2026-03-01T11:55:10.250Z",
		"logs mystery", "mystery.log: no line with a recognisable timestamp among the lines sampled; not read",
		"logs plain", "tried format text",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

// `logs --help` describes the command, not only its one-line summary.
func TestLogsHelpDescribes(t *testing.T) {
	code, out, _ := cli(t, nil, "logs", "--help")
	if code != ExitOK || !strings.Contains(out, "the first entries exactly as\nquery_logs returns them") {
		t.Errorf("logs --help: exit %d, no description:\n%s", code, out)
	}
}

// logs inspect without SOURCE lists the sources it can read (issue 40 #14:
// it was exit 2, naming none); with none configured it says how to add one.
func TestLogsInspectListsSources(t *testing.T) {
	env := diagnoseEnv(t)
	code, out, errOut := cli(t, env, "--demo", "logs", "inspect", "-o", "json")
	var rows []struct{ Name, Backend, Reads string }
	if code != ExitOK || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].Name != "demo" || rows[0].Backend != "files" || !strings.Contains(rows[0].Reads, "demo/logs/") {
		t.Errorf("--demo logs inspect -o json: exit %d, %q, %q; want the demo source", code, out, errOut)
	}
	code, out, _ = cli(t, env, "--demo", "logs", "inspect")
	if code != ExitOK || !strings.HasPrefix(out, "SOURCE  BACKEND  READS\ndemo    files    ") {
		t.Errorf("--demo logs inspect: exit %d, %q; want the table", code, out)
	}
	if code, _, errOut := cli(t, env, "logs", "inspect"); code != ExitUsage || !strings.Contains(errOut, "no log source configured") {
		t.Errorf("no [[logs]]: exit %d, %q; want exit 2 saying how to add one", code, errOut)
	}
}
