package cmd

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/model/ollamatest"
)

// storedRuns is how many runs `runs -o json` lists in env's store.
func storedRuns(t *testing.T, env map[string]string) int {
	t.Helper()
	code, out, errOut := cli(t, env, "runs", "-o", "json")
	if code != ExitOK {
		t.Fatalf("runs: exit %d: %s", code, errOut)
	}
	return len(jsonArray(t, out))
}

// A query on stdin longer than what is read is refused before any run is
// stored or model called, and the message says what is true: more than
// 1 MiB was on stdin, the limit is limits.query. A query read whole but
// over limits.query is rejected with its real size.
func TestStdinQuerySizeIsReportedTruly(t *testing.T) {
	srv := ollamatest.New(t)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	tests := []struct {
		name  string
		stdin string
		want  []string
		not   []string
	}{
		{"10 MB", strings.Repeat("x", 10<<20), []string{"more than 1048576 bytes (1 MiB)", "the limit is 4096 bytes (limits.query)", "before any model call"}, []string{"has 1048576 bytes"}},
		{"one byte over 1 MiB", strings.Repeat("x", 1<<20+1), []string{"more than 1048576 bytes"}, nil},
		{"5000 bytes", strings.Repeat("y", 5000), []string{"the query has 5000 bytes, the limit is 4096 (limits.query)"}, []string{"1 MiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cliIn(t, env, tt.stdin, "diagnose", "-")
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d\nstdout %.300s\nstderr %s", code, ExitUsage, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(errOut, n) {
					t.Errorf("stderr says %q:\n%s", n, errOut)
				}
			}
		})
	}
	if srv.ChatCount() != 0 {
		t.Fatalf("%d model calls for rejected input, want 0", srv.ChatCount())
	}
	reliability.Record(t, reliability.SectionMutation, "stdin query over 1 MiB reported as such, exit 2 before any model call", map[string]any{"test": t.Name()})
}

// --continue on a store without any session says on stderr that a new
// session starts; with a session to continue it says nothing of the kind.
func TestContinueOnEmptyStoreSaysSo(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Turn{Content: []string{noConclusion}}, ollamatest.Turn{Content: []string{noConclusion}})
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, _, errOut := cli(t, env, "diagnose", "--continue", "checkout is slow")
	if code != ExitFallback {
		t.Fatalf("exit %d, want %d: %s", code, ExitFallback, errOut)
	}
	if !strings.Contains(errOut, "--continue: the run store "+env["SUPERBIZ_DB"]+" holds no session yet; starting a new one") {
		t.Fatalf("stderr does not say a new session starts:\n%s", errOut)
	}
	code, _, errOut = cli(t, env, "diagnose", "--continue", "still slow?")
	if code != ExitFallback || strings.Contains(errOut, "holds no session") {
		t.Fatalf("second run: exit %d, stderr:\n%s", code, errOut)
	}
}

// A host with an IPv6 address cut short is a configuration error (exit 2)
// naming the problem, never a guessed http://[::1]:80.
func TestHostWithUnbalancedBracketRefused(t *testing.T) {
	for _, host := range []string{"http://[::1", "[::1", "http://::1]:11434"} {
		env := diagnoseEnv(t)
		code, _, errOut := cli(t, env, "--host", host, "diagnose", "x")
		if code != ExitUsage || !strings.Contains(errOut, "needs both brackets") {
			t.Errorf("--host %q: exit %d, stderr:\n%s", host, code, errOut)
		}
		env["OLLAMA_HOST"] = host
		code, _, errOut = cli(t, env, "diagnose", "x")
		if code != ExitUsage || !strings.Contains(errOut, "needs both brackets") {
			t.Errorf("OLLAMA_HOST=%q: exit %d, stderr:\n%s", host, code, errOut)
		}
	}
}

// noConclusion is a valid DiagnosisDraft without a conclusion: FALLBACK.
const noConclusion = `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing checked","missing_info":["logs"]}}`
