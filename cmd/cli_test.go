package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// cli runs one command line in-process with an environment made only of env
// (nothing leaks in from the test process) and returns what it printed.
func cli(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut, getenv)
	return code, out.String(), errOut.String()
}

func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {}, {"help"}} {
		code, out, errOut := cli(t, nil, args...)
		if code != ExitOK {
			t.Errorf("%q: exit %d, want 0; stderr %q", args, code, errOut)
		}
		if errOut != "" {
			t.Errorf("%q: stderr %q, want nothing", args, errOut)
		}
		for _, want := range []string{"diagnose", "doctor", "version", "completion", "--config", "--db", "--model", "--host", "--output", "--no-tui", "--demo"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: help does not mention %q:\n%s", args, want, out)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		message string
		usage   string
	}{
		{"unknown flag", []string{"--bogus"}, "unknown flag: --bogus", "Usage: superbiz [flags]"},
		{"unknown flag on a command", []string{"doctor", "--bogus"}, "unknown flag: --bogus", "Usage: superbiz doctor [flags]"},
		{"bad output value", []string{"-o", "xml", "version"}, `invalid argument "xml" for "-o, --output" flag: must be one of text, markdown, json`, "Usage: superbiz version [flags]"},
		{"bad output value long form", []string{"version", "--output=yaml"}, `invalid argument "yaml"`, "Usage: superbiz version [flags]"},
		{"unknown command", []string{"bogus"}, `unknown command "bogus" for "superbiz"`, "Usage: superbiz [flags]"},
		{"unknown command with suggestion", []string{"doctr"}, `did you mean doctor?`, "Usage: superbiz [flags]"},
		{"extra argument", []string{"version", "now"}, `superbiz: version takes no arguments, got "now"`, "Usage: superbiz version [flags]"},
		{"completion without shell", []string{"completion"}, "superbiz: completion takes one shell name", "Usage: superbiz completion bash|zsh|fish|powershell"},
		{"completion unknown shell", []string{"completion", "tcsh"}, `unknown shell "tcsh"`, "Usage: superbiz completion bash|zsh|fish|powershell"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cli(t, nil, tt.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.HasPrefix(errOut, "superbiz: ") || strings.Count(errOut, "superbiz: ") != 1 {
				t.Errorf("stderr must hold exactly one \"superbiz: \" message:\n%s", errOut)
			}
			if !strings.Contains(errOut, tt.message) {
				t.Errorf("stderr does not say %q:\n%s", tt.message, errOut)
			}
			if !strings.Contains(errOut, tt.usage) {
				t.Errorf("stderr lacks the usage line %q:\n%s", tt.usage, errOut)
			}
			if strings.Contains(errOut, "Flags:") || strings.Contains(errOut, "Available Commands") {
				t.Errorf("stderr holds a full usage dump:\n%s", errOut)
			}
		})
	}
}

// diagnoseEnv is an environment with a temporary store and no reachable model.
func diagnoseEnv(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	return map[string]string{
		"SUPERBIZ_DB":     dir + "/superbiz.db",
		"XDG_DATA_HOME":   dir + "/data",
		"XDG_CONFIG_HOME": dir + "/config",
		"OLLAMA_HOST":     testenv.ClosedURL(t),
	}
}

// TestDemoPace: the scripted demo rounds are paced only for a person
// watching the full-screen view on a terminal; piped, -o json or --no-tui
// runs are not (the piped demo tests above run unpaced through it).
func TestDemoPace(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tui    bool
		outTTY bool
		output outputFormat
		want   time.Duration
	}{
		{"terminal, full screen", true, true, "", demo.Pace},
		{"piped", true, false, "", 0},
		{"--no-tui on a terminal", false, true, "", 0},
		{"-o json on a terminal", true, true, outputJSON, 0},
	} {
		a := &app{io: &IOStreams{OutTTY: tt.outTTY}}
		if got := a.demoPace(tt.tui, tt.output); got != tt.want {
			t.Errorf("%s: pace %v, want %v", tt.name, got, tt.want)
		}
	}
}

// With --demo and no reachable model, the demo query runs on the scripted
// transcript and says so; the real tools run on the demo data.
func TestDiagnoseDemoWithoutModel(t *testing.T) {
	for _, args := range [][]string{{"diagnose", "--demo"}, {"--demo", "diagnose"}} {
		code, out, errOut := cli(t, diagnoseEnv(t), args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
		}
		// the timeline the transcript built follows the report, without its call
		timeline := "\nTimeline 2026-11-28 13:00 – 2026-11-28 15:00 UTC\n13:58:21  deploy       payment-service\n    started version 2.14.0 (was 2.13.4): Starting PaymentApplication v2.14.0"
		for _, want := range []string{"model: scripted demo transcript (no model reachable at http://127.0.0.1:", "\nConclusion\n", "HikariPool", "SUCCESS · run r_", timeline} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: stdout lacks %q:\n%s", args, want, out)
			}
		}
		if !strings.Contains(errOut, "[tool] query_mysql") || strings.Contains(out, "call_demo") {
			t.Errorf("%q: progress or answer wrong:\n%s\n%s", args, errOut, out)
		}
	}
}

// Any other query with no reachable model is exit 4 with a hint naming the
// host; an empty query is a usage error before any model call.
func TestDiagnoseModelUnreachable(t *testing.T) {
	env := diagnoseEnv(t)
	code, out, errOut := cli(t, env, "diagnose", "--demo", "why is checkout slow")
	if code != ExitUnavailable {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitUnavailable, out, errOut)
	}
	if !strings.Contains(errOut, "ollama serve") || !strings.Contains(errOut, env["OLLAMA_HOST"]) {
		t.Errorf("stderr lacks the hint:\n%s", errOut)
	}
	code, _, errOut = cli(t, env, "diagnose", "  ")
	if code != ExitUsage || !strings.Contains(errOut, "the query is empty") {
		t.Errorf("empty query: exit %d, stderr %q", code, errOut)
	}
}

func TestDiagnoseJSONShape(t *testing.T) {
	code, out, errOut := cli(t, diagnoseEnv(t), "diagnose", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"session_id", "run_id", "intent", "status", "release_outcome", "stop_reason", "answer", "result", "checks", "usage", "error"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing %q", k)
		}
	}
	if got["release_outcome"] != "SUCCESS" || got["intent"] != "DIAGNOSIS" || got["error"] != nil {
		t.Errorf("got %v", got)
	}
}

func TestVersionText(t *testing.T) {
	code, out, errOut := cli(t, nil, "version")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out, "superbiz ") || !strings.Contains(out, "(commit ") || !strings.Contains(out, ", built ") || !strings.HasSuffix(out, ")\n") {
		t.Errorf("version line %q does not read `superbiz <version> (commit <c>, built <date>, <go> <os>/<arch>)`", out)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("version printed %d lines, want 1", strings.Count(out, "\n"))
	}
}

func TestVersionJSON(t *testing.T) {
	code, out, errOut := cli(t, nil, "version", "-o", "json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("version -o json is not a JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"version", "commit", "date", "go_version", "os", "arch"} {
		if got[k] == "" {
			t.Errorf("member %q is missing or empty in %s", k, out)
		}
	}
}

func TestCompletion(t *testing.T) {
	marks := map[string]string{
		"bash":       "complete -o default -F __start_superbiz superbiz",
		"zsh":        "#compdef superbiz",
		"fish":       "complete -c superbiz",
		"powershell": "Register-ArgumentCompleter",
	}
	for shell, mark := range marks {
		code, out, errOut := cli(t, nil, "completion", shell)
		if code != ExitOK || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q", shell, code, errOut)
		}
		if !strings.Contains(out, mark) {
			t.Errorf("%s completion lacks %q (%d bytes)", shell, mark, len(out))
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err       error
		code      int
		withUsage bool
	}{
		{nil, ExitOK, false},
		{context.Canceled, ExitFailed, false},
		{usageErrorf("bad"), ExitUsage, true},
		{configError(context.DeadlineExceeded), ExitUsage, false},
		{&ExitError{Code: ExitUnavailable}, ExitUnavailable, false},
		{&ExitError{Code: ExitFallback}, ExitFallback, false},
	}
	for _, tt := range tests {
		code, usage := exitCode(tt.err)
		if code != tt.code || usage != tt.withUsage {
			t.Errorf("exitCode(%v) = %d, %v; want %d, %v", tt.err, code, usage, tt.code, tt.withUsage)
		}
	}
}

// An Ollama server without the configured model cannot answer either: the
// demo query then plays the transcript and says why; no chat is sent.
func TestDiagnoseDemoModelNotPulled(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "llama3.2:1b", Capabilities: []string{"completion", "tools"}}))
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, out, errOut := cli(t, env, "diagnose", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "model: scripted demo transcript (model qwen3:8b is not pulled at "+srv.URL()+")") || srv.ChatCount() != 0 {
		t.Fatalf("stdout:\n%s\nchat requests: %d", out, srv.ChatCount())
	}
}
