package e2e

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// A half-set model configuration (SUPERBIZ_PROVIDER=openai, no URL) stops
// only the commands that ask the model, and their error names the variable
// that chose the provider; every command that never asks the model runs.
// (They all exited 2 blaming "model.url", as if the file were wrong.)
func TestHalfSetModelOnlyWhereUsed(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	if r := e.run(t, "diagnose", "--demo", "-o", "json"); r.code != 0 {
		t.Fatalf("storing a demo run: %s", r)
	}
	e.vars["SUPERBIZ_PROVIDER"] = "openai"
	for _, args := range [][]string{
		{"runs"}, {"runs", "show", "last"}, {"skills"}, {"--demo", "logs", "inspect", "demo"},
		{"--demo", "tools", "list"}, {"--demo", "kb", "search", "redis"}, {"--demo", "timeline", "--since", "1h"},
	} {
		if r := e.run(t, args...); r.code != 0 {
			t.Errorf("with SUPERBIZ_PROVIDER=openai and no URL, %q exits %d, want 0 (it never asks the model):\n%s", args, r.code, r)
		}
	}
	r := e.run(t, "diagnose", "why")
	if r.code != 2 || !strings.Contains(r.stderr, "$SUPERBIZ_PROVIDER") || !strings.Contains(r.stderr, "model.url is not set") || !strings.Contains(r.stderr, "--url") {
		t.Errorf("diagnose with a half-set model: exit %d, want 2 and an error naming $SUPERBIZ_PROVIDER and how to set the URL:\n%s", r.code, r)
	}
	r = e.run(t, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "model.url is not set") {
		t.Errorf("doctor with a half-set model: exit %d, want 1 and the openai check saying the URL is not set:\n%s", r.code, r)
	}
}

// --url names the model server for either provider: model.url with openai
// (where --host is refused), model.host with ollama; with --host it is a
// configuration error.
func TestURLFlagEitherProvider(t *testing.T) {
	oa := openaitest.New(t, openaitest.WithModels("qwen3:8b"))
	ol := ollamatest.New(t)
	// doctor's two probes: a tool call, then a JSON answer
	oa.Script(openaitest.Turn{ToolCalls: []openaitest.ToolCall{{ID: "call_p1", Name: "report_status", Args: `{"status":"ok"}`}}},
		openaitest.Turn{Content: []string{`{"status":"ok"}`}})
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.run(t, "--provider", "openai", "--url", oa.URL(), "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, oa.URL()+" (from --url)") || !strings.Contains(r.stdout, "answers /models") {
		t.Errorf("--provider openai --url: doctor does not reach the server by --url:\n%s", r)
	}
	r = e.run(t, "--url", ol.URL(), "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, ol.URL()+" (from --url)") {
		t.Errorf("--url with ollama: exit %d, doctor does not reach the server by --url:\n%s", r.code, r)
	}
	r = e.run(t, "--url", ol.URL(), "--host", ol.URL(), "doctor")
	if r.code != 2 || !strings.Contains(r.stderr+r.stdout, "--url and --host both name the model server") {
		t.Errorf("--url with --host: exit %d, want 2 naming the conflict:\n%s", r.code, r)
	}
}

// diagnose with no model server (exit 4) hints at --demo beside starting
// the server: a newcomer without a model can still see a diagnosis.
func TestDiagnoseNoModelHintsDemo(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.run(t, "diagnose", "why are payments slow")
	if r.code != 4 || !strings.Contains(r.stderr, "ollama serve") || !strings.Contains(r.stderr, "superbiz diagnose --demo") {
		t.Errorf("diagnose with no model server: exit %d, want 4 with both hints:\n%s", r.code, r)
	}
}
