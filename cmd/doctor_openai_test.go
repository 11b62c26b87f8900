package cmd

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/internal/testenv"
)

const doctorKey = "sk-doctor-Hunter2Value"

// openAIDoctorEnv points doctor at srv through the environment, with key in
// $OPENAI_API_KEY when it is not empty.
func openAIDoctorEnv(t *testing.T, srv *openaitest.Server, key string) map[string]string {
	env, _ := doctorEnv(t, testenv.ClosedURL(t))
	env["SUPERBIZ_PROVIDER"], env["OPENAI_BASE_URL"], env["SUPERBIZ_MODEL"] = "openai", srv.URL(), "m1"
	if key != "" {
		env["OPENAI_API_KEY"] = key
	}
	return env
}

var (
	probeCall = openaitest.Turn{ToolCalls: []openaitest.ToolCall{{ID: "call_p1", Name: "report_status", Args: `{"status":"ok"}`}}}
	probeJSON = openaitest.Turn{Content: []string{`{"status":"ok"}`}}
)

// doctor with the openai provider reports the URL, the key (never its
// value), the model on /models, a tool-call probe and a structured probe.
func TestDoctorOpenAI(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithModels("m1", "m2"), openaitest.WithAPIKey(doctorKey))
	srv.Script(probeCall, probeJSON)
	code, out, errOut := cli(t, openAIDoctorEnv(t, srv, doctorKey), "doctor")
	if strings.Contains(out+errOut, doctorKey) {
		t.Errorf("doctor shows the key:\n%s", out)
	}
	for check, says := range map[string]string{
		"openai":            srv.URL() + " answers /models",
		"api key":           "$OPENAI_API_KEY is set",
		"model":             "m1 is listed",
		"tool calling":      `called report_status({"status":"ok"})`,
		"structured output": "follows the schema",
	} {
		if l := line(t, out, "ok  ", check); !strings.Contains(l, says) {
			t.Errorf("%s line %q does not say %q", check, l, says)
		}
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 || len(reqs[0].Tools) != 1 || len(reqs[1].ResponseFormat) == 0 || len(reqs[1].Tools) != 0 {
		t.Errorf("probes sent %+v", reqs)
	}
	_ = code // other checks (knowledge paths) may fail on this machine's defaults
}

// Each openai probe fails with what to do.
func TestDoctorOpenAIFailures(t *testing.T) {
	for _, tt := range []struct {
		name  string
		key   string
		turns []openaitest.Turn
		model string
		check string
		says  string
		hint  string
	}{
		{name: "no key", check: "api key", says: "$OPENAI_API_KEY is not set and", hint: "put the server's API key in $OPENAI_API_KEY"},
		{name: "wrong key", key: "sk-wrong-Hunter2", check: "api key", says: "is set but", hint: "model.api_key_env"},
		{name: "model not listed", key: doctorKey, model: "m9", check: "model", says: "m9 is not listed", hint: "exactly as /models lists it"},
		{name: "no tool call", key: doctorKey, turns: []openaitest.Turn{{Content: []string{"status ok"}}, probeJSON}, check: "tool calling", says: `answered "status ok" instead of calling`, hint: "--enable-auto-tool-choice"},
		{name: "tool choice refused", key: doctorKey, turns: []openaitest.Turn{{Fault: openaitest.FaultToolChoice}, probeJSON}, check: "tool calling", says: "--enable-auto-tool-choice and --tool-call-parser", hint: "llama-server needs --jinja"},
		{name: "not the schema", key: doctorKey, turns: []openaitest.Turn{probeCall, {Content: []string{"ok!"}}}, check: "structured output", says: `"ok!" does not follow the schema`, hint: `model.structured = "json_object" or "none"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithModels("m1"), openaitest.WithAPIKey(doctorKey))
			srv.Script(tt.turns...)
			env := openAIDoctorEnv(t, srv, tt.key)
			if tt.model != "" {
				env["SUPERBIZ_MODEL"] = tt.model
			}
			code, out, errOut := cli(t, env, "doctor")
			if code != ExitFailed {
				t.Errorf("exit %d, want %d", code, ExitFailed)
			}
			if l := line(t, out, "FAIL", tt.check); !strings.Contains(l, tt.says) {
				t.Errorf("%s line %q does not say %q", tt.check, l, tt.says)
			}
			if h := hintAfter(t, out, tt.check); !strings.Contains(h, tt.hint) {
				t.Errorf("hint %q does not say %q", h, tt.hint)
			}
			if strings.Contains(out+errOut, "Hunter2") {
				t.Errorf("doctor shows a key:\n%s", out)
			}
		})
	}
}
