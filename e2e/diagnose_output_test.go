package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// demoNote is the first words of the scripted demo transcript's notice.
const demoNote = "model: scripted demo transcript (no model reachable at http://127.0.0.1:"

// -o text is for a person: piped, the answer is plain text (no Markdown
// heading, emphasis or backquote marks, no escape sequence) under the demo
// notice; -o markdown keeps the Markdown (docs/SPEC.md#output).
func TestDiagnoseTextIsPlain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.runExit(t, 0, "diagnose", "--demo")
	if !strings.HasPrefix(r.stdout, demoNote) {
		t.Errorf("text does not start with the notice %q:\n%s", demoNote, r.stdout)
	}
	if !strings.Contains(r.stdout, "\nConclusion\n──────────\n") || !strings.Contains(r.stdout, "\nSummary: Checkout payments") {
		t.Errorf("text lacks the plain heading and summary:\n%s", r.stdout)
	}
	marks := regexp.MustCompile("(?m)^#|\\*\\*|`|^_|\x1b")
	if m := marks.FindString(r.stdout); m != "" {
		t.Errorf("text holds the Markdown or escape mark %q:\n%s", m, r.stdout)
	}
	md := e.run(t, "diagnose", "--demo", "-o", "markdown")
	if md.code != 0 || !strings.HasPrefix(md.stdout, "_"+demoNote) || !strings.Contains(md.stdout, "\n## Conclusion\n") || !strings.Contains(md.stdout, "**Summary:**") {
		t.Errorf("-o markdown is not the Markdown answer:\n%s", md)
	}
}

// -o json names the model and provider that answered, and carries the
// demo notice that stderr says; a run no model answered names the
// configured ones, with no note, and hints at --demo.
func TestDiagnoseJSONNamesModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.runExit(t, 0, "diagnose", "--demo", "-o", "json")
	out := decodeOutput(t, r)
	if out.Model != "scripted demo transcript" || out.Provider != "demo" || out.Note == nil || !strings.HasPrefix(*out.Note, demoNote) {
		t.Errorf("model %q, provider %q, note %v; want the scripted demo transcript, demo and its notice", out.Model, out.Provider, out.Note)
	}
	if !strings.Contains(r.stderr, demoNote) {
		t.Errorf("stderr lacks the notice:\n%s", r.stderr)
	}

	down := e.runExit(t, 4, "diagnose", "-o", "json", "why is checkout slow")
	out = decodeOutput(t, down)
	if out.Model != "qwen3:8b" || out.Provider != "ollama" || out.Note != nil {
		t.Errorf("model %q, provider %q, note %v; want qwen3:8b, ollama and null", out.Model, out.Provider, out.Note)
	}
	if !strings.Contains(down.stderr, "hint: `superbiz diagnose --demo` shows a whole diagnosis with no model") {
		t.Errorf("exit 4 does not mention --demo:\n%s", down.stderr)
	}
	other := e.run(t, "diagnose", "--demo", "why is checkout slow")
	if other.code != 4 || !strings.Contains(other.stderr, "scripted transcript of its own question only") {
		t.Errorf("--demo with a QUERY of its own and no model: want exit 4 saying only the demo question is scripted\n%s", other)
	}
}

// A run that ends without a conclusion is named the same way on stdout
// (its last line) and on stderr (the [done] progress line): outcome, then
// stop reason.
func TestFallbackNamedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.runExit(t, 3, "diagnose", "--demo", "--max-tool-calls", "1")
	const words = "FALLBACK · TOOL_BUDGET_EXHAUSTED · "
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, words+"run r_") {
		t.Errorf("stdout's last line %q, want it to start %q", last, words+"run r_")
	}
	if !strings.Contains(r.stderr, "[done] ✔ "+words) {
		t.Errorf("stderr's [done] line does not say %q:\n%s", words, r.stderr)
	}
}
