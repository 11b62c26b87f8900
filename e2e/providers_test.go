package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// testAPIKey is the key the OpenAI-compatible test server demands; it must
// never appear in anything the binary writes.
const testAPIKey = "sk-e2e-Zq8dHunter2KeyValue"

// modelServer is a scripted model server of either provider, driven by one
// ollamatest script and read back in ollamatest's request shape, so every
// scenario runs through both providers and neither can fall behind.
type modelServer interface {
	Script(turns ...ollamatest.Turn)
	ChatRequests() []ollamatest.ChatRequest
	Pending() int
	// env points a new environment of the binary at the server.
	env(t testing.TB) *env
}

// provider starts one kind of model server for a test.
type provider struct {
	name  string
	start func(t testing.TB, opts ...openaitest.Option) modelServer
}

// providers are the two ways the binary reaches a model.
var providers = []provider{
	{"ollama", func(t testing.TB, _ ...openaitest.Option) modelServer { return ollamaServer{newServer(t)} }},
	{"openai", func(t testing.TB, opts ...openaitest.Option) modelServer { return newOpenAIServer(t, opts...) }},
}

type ollamaServer struct{ *ollamatest.Server }

func (s ollamaServer) env(t testing.TB) *env { return newEnv(t, s.URL()) }

// openAIServer is openaitest behind the modelServer interface; it demands
// testAPIKey, which the environment gives in $OPENAI_API_KEY.
type openAIServer struct {
	t   testing.TB
	srv *openaitest.Server
}

func newOpenAIServer(t testing.TB, opts ...openaitest.Option) *openAIServer {
	t.Helper()
	return &openAIServer{t: t, srv: openaitest.New(t, append([]openaitest.Option{openaitest.WithModels("qwen3:8b"), openaitest.WithAPIKey(testAPIKey)}, opts...)...)}
}

func (s *openAIServer) Script(turns ...ollamatest.Turn) {
	for i, turn := range turns {
		ot, ok := openaitest.FromOllama(turn)
		if !ok {
			s.t.Fatalf("turn %d: fault %s has no OpenAI counterpart", i, turn.Fault)
		}
		s.srv.Script(ot)
	}
}

func (s *openAIServer) ChatRequests() []ollamatest.ChatRequest {
	var out []ollamatest.ChatRequest
	for _, r := range s.srv.ChatRequests() {
		out = append(out, r.Ollama())
	}
	return out
}

func (s *openAIServer) Pending() int { return s.srv.Pending() }

// env points the binary at the server through the environment alone, with
// OLLAMA_HOST left at a closed port: the openai provider must ignore it.
func (s *openAIServer) env(t testing.TB) *env {
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_PROVIDER"] = "openai"
	e.vars["OPENAI_BASE_URL"] = s.srv.URL()
	e.vars["OPENAI_API_KEY"] = testAPIKey
	return e
}

// assertKeyAbsent fails when the API key shows in what the binary wrote:
// its streams, the run store file and its WAL, and `runs show` of runID.
func assertKeyAbsent(t *testing.T, e *env, runID string, rs ...result) {
	t.Helper()
	if runID != "" {
		rs = append(rs, e.run(t, "runs", "show", runID), e.run(t, "runs", "show", runID, "-o", "json"))
	}
	for _, r := range rs {
		if strings.Contains(r.stdout+r.stderr, testAPIKey) {
			t.Errorf("the API key shows in the output of %q", r.args)
		}
	}
	for _, f := range []string{e.vars["SUPERBIZ_DB"], e.vars["SUPERBIZ_DB"] + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if strings.Contains(string(b), testAPIKey) {
			t.Errorf("the API key is in %s", f)
		}
	}
}

// Through the built binary with model.provider = "openai": the payment
// diagnosis reaches a released SUCCESS with its four cited checks under
// every quirk of the real servers, streamed and not, and with the schema in
// the prompt instead of response_format.
func TestOpenAIQuirks(t *testing.T) {
	t.Parallel()
	type mode struct {
		quirk      openaitest.Quirk
		stream     bool
		structured string
		split      int
	}
	var modes []mode
	for _, q := range openaitest.Quirks {
		modes = append(modes, mode{quirk: q, stream: true, split: 5}, mode{quirk: q, stream: false})
	}
	modes = append(modes, mode{stream: true, structured: "none"}, mode{stream: false, structured: "json_object"})
	for _, m := range modes {
		name := fmt.Sprintf("%s/stream=%v/structured=%s", m.quirk, m.stream, m.structured)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newOpenAIServer(t, openaitest.WithQuirk(m.quirk), openaitest.WithSplit(m.split))
			srv.Script(append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))...)
			e := srv.env(t)
			dir := filepath.Join(e.dir, "config", "superbiz")
			toml := fmt.Sprintf("[model]\nprovider = \"openai\"\nstream = %v\n", m.stream)
			if m.structured != "" {
				toml += fmt.Sprintf("structured = %q\n", m.structured)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(toml), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.runExit(t, 0, "--demo", "diagnose", "-o", "json", queryPayment)
			out := decodeOutput(t, r)
			if out.Status != "SUCCESS" || len(out.Checks) != 4 || !strings.Contains(out.Answer, "payment-timeout.md") {
				t.Errorf("status %s, %d checks, answer:\n%s", out.Status, len(out.Checks), out.Answer)
			}
			reqs := srv.srv.ChatRequests()
			if m.quirk == openaitest.QuirkMaxTokensOnly {
				// The first round's max_completion_tokens is refused once; that
				// round and every later one send max_tokens instead.
				if len(reqs) != 8 || reqs[0].MaxCompletionTokens == 0 || reqs[1].MaxTokens != reqs[0].MaxCompletionTokens {
					t.Fatalf("%d requests (want 8), first bounds %d then max_tokens %d", len(reqs), reqs[0].MaxCompletionTokens, reqs[1].MaxTokens)
				}
				reqs = reqs[1:]
			}
			if len(reqs) != 7 || reqs[0].Stream != m.stream {
				t.Fatalf("%d requests (want 7), stream %v", len(reqs), reqs[0].Stream)
			}
			// Every round's answer is bounded by what remains of the token
			// budget: the first by all of it, each later one by less.
			for i, r := range reqs {
				bound := max(r.MaxCompletionTokens, r.MaxTokens)
				if bound <= 0 || (i > 0 && bound >= max(reqs[i-1].MaxCompletionTokens, reqs[i-1].MaxTokens)) || (m.quirk == openaitest.QuirkMaxTokensOnly) != (r.MaxTokens > 0) {
					t.Errorf("request %d: max_completion_tokens %d, max_tokens %d", i, r.MaxCompletionTokens, r.MaxTokens)
				}
			}
			guard := reqs[len(reqs)-1]
			if inFormat := len(guard.ResponseFormat) > 0 && strings.Contains(string(guard.ResponseFormat), "verdict"); inFormat != (m.structured == "") {
				t.Errorf("guard response_format %s with structured %q", guard.ResponseFormat, m.structured)
			}
			show := e.run(t, "runs", "show", out.RunID)
			if !strings.Contains(show.stdout, "(provider openai)") {
				t.Errorf("runs show does not say the provider:\n%s", show.stdout)
			}
			if m.quirk == openaitest.QuirkNoUsage {
				js := e.run(t, "runs", "show", out.RunID, "-o", "json")
				if out.Usage.PromptTokens == 0 || !strings.Contains(js.stdout, `"tokens_estimated": true`) {
					t.Errorf("no usage reported: usage %+v, and the rounds do not record it as estimated", out.Usage)
				}
			}
			assertReplay(t, e, out.RunID)
			assertKeyAbsent(t, e, out.RunID, r)
		})
	}
}

// Each fault of an OpenAI-compatible server ends the run with exit 4,
// MODEL_UNAVAILABLE and an honest message naming the URL and the cause,
// and the key shows nowhere.
func TestOpenAIFaults(t *testing.T) {
	t.Parallel()
	for _, f := range openaitest.Faults {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			srv := newOpenAIServer(t)
			turn := openaitest.Turn{Content: []string{"partial"}, Fault: f, RetryAfter: "0"}
			srv.srv.Script(turn, turn, turn, turn)
			e := srv.env(t)
			r := e.runExit(t, 4, "--demo", "diagnose", "--no-tui", queryPayment)
			says := map[openaitest.Fault]string{
				openaitest.FaultUnauthorized:     "refused the API key from $OPENAI_API_KEY",
				openaitest.FaultForbidden:        "HTTP 403",
				openaitest.FaultModelNotFound:    "its /models lists: qwen3:8b",
				openaitest.FaultRateLimited:      "rate limited",
				openaitest.FaultServerError:      openaitest.DefaultServerError,
				openaitest.FaultProxyHTML:        "502 Bad Gateway",
				openaitest.FaultCutStream:        "stream cut",
				openaitest.FaultErrorInStream:    openaitest.DefaultStreamError,
				openaitest.FaultMalformedData:    "malformed data line",
				openaitest.FaultContextLength:    "limits.observation",
				openaitest.FaultToolChoice:       "--enable-auto-tool-choice",
				openaitest.FaultServerErrorEmpty: "HTTP 500 with an empty body",
				openaitest.FaultBadRequest:       openaitest.DefaultBadRequest,
			}[f]
			if !strings.Contains(r.stderr, says) || !strings.Contains(r.stderr, "hint:") || !strings.Contains(r.stderr, "/v1") {
				t.Errorf("stderr does not say %q with a hint and the URL:\n%s", says, r.stderr)
			}
			assertKeyAbsent(t, e, newestRun(t, e), r)
		})
	}
}

// A one-letter API key (users type "x" or "e" for a local server) is no
// secret to scrub from the answer: scrubbing "e" made query_logs
// qu[REDACTED]ry_logs and broke every run. The run succeeds with its tool
// calls named as the model named them.
func TestOpenAIShortKeyIsNotScrubbed(t *testing.T) {
	t.Parallel()
	srv := &openAIServer{t: t, srv: openaitest.New(t, openaitest.WithModels("qwen3:8b"), openaitest.WithAPIKey("e"))}
	srv.Script(append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))...)
	e := srv.env(t)
	e.vars["OPENAI_API_KEY"] = "e"
	r := e.runExit(t, 0, "--demo", "diagnose", "-o", "json", queryPayment)
	out := decodeOutput(t, r)
	if out.Status != "SUCCESS" || len(out.Checks) != 4 {
		t.Errorf("status %s with %d checks, want SUCCESS with 4", out.Status, len(out.Checks))
	}
	show := e.run(t, "runs", "show", out.RunID)
	if strings.Contains(show.stdout, "[REDACTED]ry_logs") || !strings.Contains(show.stdout, "query_logs") {
		t.Errorf("runs show mangles the tool names:\n%s", show.stdout)
	}
}
