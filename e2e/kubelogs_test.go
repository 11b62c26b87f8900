package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// Kubernetes node logs, as the binary reads them: six containers' files
// under var/log/containers and var/log/pods, wrapped by docker's json-file
// driver or by CRI (one line split into P and F parts), around JSON, logfmt
// and plain-text lines. Each holds five entries in the window, two of them
// ERROR and two holding "timeout". Level comes from the inner line, service
// from the container name in the path, contains sees a joined CRI line whole.
func TestKubernetesNodeLogs(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	fixture.CopyTree(t, filepath.Join("testdata", "kube"), e.dir)
	cfg := "[[logs]]\nname = \"k8s\"\ntimezone = \"UTC\"\npaths = [\"var/log/containers/*.log\", \"var/log/pods/*/*/*.log\"]\n"
	if err := os.WriteFile(filepath.Join(e.dir, "superbiz.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","limit":20`
	for _, tt := range []struct {
		filter string
		want   int
	}{
		{``, 30},
		{`"level":"ERROR"`, 12},
		{`"contains":"timeout"`, 12},
		{`"service":"verify-code","level":"ERROR"`, 2},  // docker, plain text inside
		{`"service":"checkout","level":"ERROR"`, 2},     // docker, JSON inside
		{`"service":"cart","level":"WARN"`, 1},          // docker, logfmt inside
		{`"service":"payments","level":"ERROR"`, 2},     // CRI under var/log/pods, JSON inside
		{`"service":"ledger","contains":"timeout"`, 2},  // CRI, logfmt inside
		{`"service":"gateway","contains":"timeout"`, 2}, // CRI, one line in P and F parts
		{`"service":"gateway","level":"ERROR"`, 2},      // the joined line keeps its level
		{`"service":"shop","level":"ERROR"`, 0},         // the namespace is no service
	} {
		in := "{" + window
		if tt.filter != "" {
			in += "," + tt.filter
		}
		in += "}"
		r := e.run(t, "tools", "call", "-o", "json", "query_logs", in)
		var obs struct {
			Result struct {
				Matched int `json:"matched"`
				Entries []struct {
					Service string            `json:"service"`
					Message string            `json:"message"`
					Fields  map[string]string `json:"fields"`
				} `json:"entries"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil {
			t.Fatalf("%s: %v\n%s", in, err, r)
		}
		if obs.Result.Matched != tt.want {
			t.Errorf("%s: matched %d, want %d\n%s", in, obs.Result.Matched, tt.want, r.stdout)
		}
		for _, en := range obs.Result.Entries {
			if en.Fields["stream"] == "" || strings.Contains(en.Message, "stdout") {
				t.Errorf("%s: entry %+v lacks its stream or keeps the wrapper", in, en)
			}
		}
	}
	r := e.run(t, "logs", "inspect", "k8s", "--entries", "1")
	for _, want := range []string{"layout docker_json, 7 of 7 lines", "layout cri, 8 of 8 lines", "layout cri, 7 of 7 lines", "cart  starting"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("logs inspect lacks %q:\n%s", want, r)
		}
	}
	reliability.Record(t, reliability.SectionMutation, "Kubernetes node logs (docker json-file and CRI around JSON, logfmt, text): level, service and contains counted through the binary", map[string]any{"test": t.Name()})
}
