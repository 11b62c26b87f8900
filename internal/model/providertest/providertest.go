// Package providertest runs one scripted scenario through either model
// provider: it starts ollamatest or openaitest, drives both with the same
// ollamatest turns, reads back what either received in ollamatest's request
// shape, and builds the model client configured for it, so a scenario test
// written once is table-driven over both providers and neither falls behind.
package providertest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/ollama"
	"github.com/superbiz/superbiz/pkg/model/openai"
)

// Provider names a provider as model.provider spells it.
type Provider string

// The two providers a scenario runs through.
const (
	Ollama Provider = config.ProviderOllama
	OpenAI Provider = config.ProviderOpenAI
)

// Providers lists both providers, for table-driven tests.
func Providers() []Provider { return []Provider{Ollama, OpenAI} }

// Model is the model id both servers list and every client asks for.
const Model = ollamatest.DefaultModel

// RequestTimeout bounds one round of the clients this package builds.
const RequestTimeout = 10 * time.Second

// Server is a running scripted server of one provider.
type Server struct {
	provider Provider
	t        testing.TB
	ollama   *ollamatest.Server
	openai   *openaitest.Server
}

// Start starts a server of provider p for one test; it closes when the
// test ends, and script misuse is reported as a test error.
func Start(t testing.TB, p Provider) *Server {
	t.Helper()
	s := &Server{provider: p, t: t}
	switch p {
	case Ollama:
		s.ollama = ollamatest.New(t)
	case OpenAI:
		s.openai = openaitest.New(t, openaitest.WithModels(Model))
	default:
		t.Fatalf("providertest: unknown provider %q", p)
	}
	return s
}

// Each runs fn as one subtest per provider, named after it.
func Each(t *testing.T, fn func(t *testing.T, p Provider)) {
	t.Helper()
	for _, p := range Providers() {
		t.Run(string(p), func(t *testing.T) { fn(t, p) })
	}
}

// Provider is the server's provider.
func (s *Server) Provider() Provider { return s.provider }

// URL is what the client is configured with: Ollama's host, or the
// OpenAI-compatible base URL ending in /v1.
func (s *Server) URL() string {
	if s.ollama != nil {
		return s.ollama.URL()
	}
	return s.openai.URL()
}

// Env is the environment that points superbiz at this server, as a person
// would: OLLAMA_HOST for Ollama; SUPERBIZ_PROVIDER=openai and
// OPENAI_BASE_URL for the OpenAI-compatible wire.
func (s *Server) Env() map[string]string {
	if s.ollama != nil {
		return map[string]string{ollama.EnvHost: s.URL()}
	}
	return map[string]string{config.EnvProvider: string(OpenAI), openai.EnvBaseURL: s.URL()}
}

// Client is the model client configured for this server as cmd configures
// it by default (Ollama: num_ctx 8192; OpenAI: streamed, json_schema).
func (s *Server) Client() model.ChatModel {
	s.t.Helper()
	var (
		m   model.ChatModel
		err error
	)
	if s.ollama != nil {
		m, err = ollama.New(ollama.Options{Host: s.URL(), Model: Model, NumCtx: 8192, RequestTimeout: RequestTimeout})
	} else {
		m, err = openai.New(openai.Options{URL: s.URL(), Model: Model, Stream: true, Structured: openai.StructuredJSONSchema, RequestTimeout: RequestTimeout})
	}
	if err != nil {
		s.t.Fatalf("providertest: %s client: %v", s.provider, err)
	}
	return m
}

// Script appends turns to the FIFO that successive chat requests consume;
// a turn whose fault has no counterpart on the provider's wire fails the test.
func (s *Server) Script(turns ...ollamatest.Turn) {
	s.t.Helper()
	if s.ollama != nil {
		s.ollama.Script(turns...)
		return
	}
	for i, turn := range turns {
		ot, err := translate(turn)
		if err != nil {
			s.t.Fatalf("providertest: turn %d: %v", i, err)
		}
		s.openai.Script(ot)
	}
}

// Handle computes a turn from the request once the scripted FIFO is empty;
// fn reads the request in ollamatest's shape whichever provider received it.
func (s *Server) Handle(fn func(req ollamatest.ChatRequest) ollamatest.Turn) {
	if s.ollama != nil {
		s.ollama.Handle(fn)
		return
	}
	s.openai.Handle(func(req openaitest.ChatRequest) openaitest.Turn {
		ot, err := translate(fn(req.Ollama()))
		if err != nil {
			// The handler runs on the server's goroutine: report, then fail the round.
			s.t.Errorf("providertest: handled turn: %v", err)
			return openaitest.Turn{Fault: openaitest.FaultServerError}
		}
		return ot
	})
}

func translate(turn ollamatest.Turn) (openaitest.Turn, error) {
	ot, ok := openaitest.FromOllama(turn)
	if !ok {
		return ot, fmt.Errorf("fault %s has no counterpart on the OpenAI wire", turn.Fault)
	}
	return ot, nil
}

// ChatRequests returns every chat request received, in ollamatest's shape.
func (s *Server) ChatRequests() []ollamatest.ChatRequest {
	if s.ollama != nil {
		return s.ollama.ChatRequests()
	}
	var out []ollamatest.ChatRequest
	for _, r := range s.openai.ChatRequests() {
		out = append(out, r.Ollama())
	}
	return out
}

// ChatCount is the number of chat requests received.
func (s *Server) ChatCount() int { return len(s.ChatBodies()) }

// RequestCount is the number of requests of any kind received.
func (s *Server) RequestCount() int { return len(s.requests()) }

// Pending is the number of scripted turns not consumed yet.
func (s *Server) Pending() int {
	if s.ollama != nil {
		return s.ollama.Pending()
	}
	return s.openai.Pending()
}

// chatPath is the chat endpoint's path on the provider's wire.
func (s *Server) chatPath() string {
	if s.ollama != nil {
		return "/api/chat"
	}
	return "/v1/chat/completions"
}

// ChatBodies returns the raw body of every chat request, as sent.
func (s *Server) ChatBodies() [][]byte {
	var out [][]byte
	for _, r := range s.requests() {
		if r.path == s.chatPath() {
			out = append(out, r.body)
		}
	}
	return out
}

// Bodies returns the raw body of every request of any kind, as sent.
func (s *Server) Bodies() [][]byte {
	var out [][]byte
	for _, r := range s.requests() {
		out = append(out, r.body)
	}
	return out
}

type request struct {
	path string
	body []byte
}

func (s *Server) requests() []request {
	var out []request
	if s.ollama != nil {
		for _, r := range s.ollama.Requests() {
			out = append(out, request{r.Path, r.Body})
		}
		return out
	}
	for _, r := range s.openai.Requests() {
		out = append(out, request{r.Path, r.Body})
	}
	return out
}

// OutputBounds is the bound on the answer's length each chat request sent
// (0: none): Ollama's options.num_predict, or the OpenAI wire's
// max_completion_tokens (max_tokens once the server refused that name).
func (s *Server) OutputBounds() []int {
	var out []int
	if s.ollama != nil {
		for _, r := range s.ollama.ChatRequests() {
			n, _ := r.Options["num_predict"].(float64)
			out = append(out, int(n))
		}
		return out
	}
	for _, r := range s.openai.ChatRequests() {
		out = append(out, max(r.MaxCompletionTokens, r.MaxTokens))
	}
	return out
}

// ChatBodiesUnbounded is ChatBodies with the output bound taken out (see
// OutputBounds), members in a canonical order: two rounds that sent the same
// input while the token budget shrank compare equal.
func (s *Server) ChatBodiesUnbounded() [][]byte {
	var out [][]byte
	for _, b := range s.ChatBodies() {
		out = append(out, unbounded(s.t, b))
	}
	return out
}

func unbounded(t testing.TB, body []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("providertest: chat body is not a JSON object: %v", err)
	}
	delete(m, "max_completion_tokens")
	delete(m, "max_tokens")
	if raw, ok := m["options"]; ok {
		var opts map[string]json.RawMessage
		if err := json.Unmarshal(raw, &opts); err != nil {
			t.Fatalf("providertest: options are not a JSON object: %v", err)
		}
		delete(opts, "num_predict")
		m["options"] = mustMarshal(t, opts)
	}
	return mustMarshal(t, m)
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("providertest: %v", err)
	}
	return b
}
