package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
)

// TestLogsInspectQueryDoctorAgree: logs inspect, query_logs and doctor give
// one verdict on a source, and a file none of them reads is named with its
// reason. A first line of deeply nested JSON longer than the 1 MiB sample
// (followed by ordinary JSON lines) is read by all three, a blank file is
// read and said to be empty, and a file without a timestamp is unread by
// all three, with the reason.
func TestLogsInspectQueryDoctorAgree(t *testing.T) {
	var lines strings.Builder
	lines.WriteString(strings.Repeat(`{"a":`, 300000) + "1" + strings.Repeat("}", 300000) + "\n")
	for _, m := range []string{"11:50:00", "11:51:00", "11:52:00"} {
		lines.WriteString(`{"time":"2026-03-01T` + m + `Z","level":"error","service":"pay","msg":"db timeout"}` + "\n")
	}
	for _, tt := range []struct {
		name, content string
		code          int      // of logs inspect; tools call's is the same but for an unreadable source (UNAVAILABLE: 4)
		inspect       []string // in logs inspect's stdout and stderr
		matched       float64
		doctor        string
	}{
		{"nested", lines.String(), ExitOK, []string{"layout json, 3 of 4 lines (75.0%) placed in time, 2026-03-01T11:50:00.000Z .. 2026-03-01T11:52:00.000Z", "11:50:00.000Z ERROR pay  db timeout"}, 3,
			"ok   logs app         1 file(s) match; layout json (1); 3 of 4 lines (75.0%) placed in time; 2026-03-01T11:50:00.000Z .. 2026-03-01T11:52:00.000Z"},
		{"blank", "\n  \n", ExitOK, []string{"app.log: empty (no line to read; searched without complaint)"}, 0,
			"ok   logs app         1 file(s) match; 1 file(s) empty (no line to read; searched without complaint)"},
		{"untimed", "hello\nworld\n", ExitFailed, []string{"app.log: no line with a recognisable timestamp", "no file of source app can be read: all 1 file(s) would be skipped, each with its reason"}, 0,
			"FAIL logs app         1 file(s) match, all would be skipped:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := diagnoseEnv(t)
			env["SUPERBIZ_NOW"] = "2026-03-01T12:00:00Z"
			fixture.WriteFile(t, filepath.Join(dir, "logs", "app.log"), tt.content)
			cfg := filepath.Join(dir, "superbiz.toml")
			fixture.WriteFile(t, cfg, "[knowledge]\npaths = []\n\n[[logs]]\nname = \"app\"\npaths = [\"./logs/app.log\"]\ntimezone = \"UTC\"\n")
			env["SUPERBIZ_CONFIG"] = cfg

			code, out, errOut := cli(t, env, "logs", "inspect", "app")
			if code != tt.code {
				t.Errorf("logs inspect: exit %d, want %d\n%s\n%s", code, tt.code, out, errOut)
			}
			for _, want := range tt.inspect {
				if !strings.Contains(out+errOut, want) {
					t.Errorf("logs inspect lacks %q:\n%s\n%s", want, out, errOut)
				}
			}
			code, out, errOut = cli(t, env, "tools", "call", "-o", "json", "query_logs", `{"source":"app","since":"1h"}`)
			res, _ := obsOf(t, out)["result"].(map[string]any)
			want := tt.code
			if want == ExitFailed {
				want = ExitUnavailable
			}
			if code != want || tt.code == ExitOK && res["matched"] != tt.matched {
				t.Errorf("query_logs: exit %d (want %d), matched %v (want %v)\n%s\n%s", code, want, res["matched"], tt.matched, out, errOut)
			}
			_, out, _ = cli(t, env, "doctor")
			if !strings.Contains(out, tt.doctor) {
				t.Errorf("doctor lacks %q:\n%s", tt.doctor, out)
			}
		})
	}
}
