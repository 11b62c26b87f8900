// Package openaitest is a wire-faithful OpenAI-compatible test server:
// scripted /v1/chat/completions turns streamed as real server-sent events
// (or answered whole), each quirk of the real servers (vLLM, llama.cpp, LM
// Studio, Ollama's /v1) as a mode, the bytes optionally cut into pieces of
// any size, faults in OpenAI's error shape, /v1/models, /v1/embeddings, an
// optional API key, and a record of every request. It is the counterpart of
// ollamatest: usable from any package's tests (New) and outside them
// (NewServer), e.g. as the model.url of a run of the built binary.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/wirebook"
)

// DefaultModel is the one model a server lists when WithModels is not given.
const DefaultModel = "Qwen/Qwen3-8B"

// Created is the fixed creation time of every answer and model, so streams are reproducible.
const Created = 1767225600

// Recorded is one request the server received.
type Recorded struct {
	Method string
	Path   string
	Body   []byte
	// Authorization is the request's Authorization header.
	Authorization string
	// Chat is the decoded body of a chat request (nil otherwise).
	Chat *ChatRequest
	// Status is the HTTP status answered.
	Status int
	Fault  Fault
}

// Option configures a Server.
type Option func(*Server)

// WithModels replaces the model list; chats for any other model are 404 model_not_found.
func WithModels(ids ...string) Option { return func(s *Server) { s.models = slices.Clone(ids) } }

// WithAPIKey makes every request need "Authorization: Bearer key", as hosted APIs do.
func WithAPIKey(key string) Option { return func(s *Server) { s.key = key } }

// WithQuirk sets the stream's quirk (QuirkNone by default).
func WithQuirk(q Quirk) Option { return func(s *Server) { s.quirk = q } }

// WithSplit writes every answer n bytes at a time, each piece flushed, so
// events and data lines are cut at arbitrary bytes; 0 writes whole events.
func WithSplit(n int) Option { return func(s *Server) { s.split = n } }

// WithEmbed replaces the embedding function (ollamatest.Vector by default).
func WithEmbed(fn func(model, text string) []float32) Option {
	return func(s *Server) { s.embed = fn }
}

// Server is the running test server. All methods are safe for concurrent use.
type Server struct {
	models []string
	key    string
	quirk  Quirk
	split  int
	embed  func(model, text string) []float32
	srv    *httptest.Server

	book wirebook.Book[Turn, ChatRequest, Recorded, Fault]
}

// New starts a server for one test; it is closed, and any script problem
// reported as a test error, when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := NewServer(opts...)
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("openaitest: %s", p)
		}
	})
	return s
}

// NewServer starts a server without a testing.TB; the caller must Close it.
func NewServer(opts ...Option) *Server {
	s := &Server{models: []string{DefaultModel}, embed: ollamatest.Vector}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("POST /v1/embeddings", s.serveEmbeddings)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		i := s.record(r, nil, nil)
		s.setOutcome(i, http.StatusNotFound, FaultNone)
		writeError(w, http.StatusNotFound, "Not Found", "invalid_request_error", "")
	})
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the base URL to configure as model.url, e.g. "http://127.0.0.1:40123/v1".
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close shuts the server down, cutting any stream still open.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script appends turns to the FIFO that successive chat requests consume.
func (s *Server) Script(turns ...Turn) { s.book.Script(turns...) }

// Handle computes a turn from the request once the scripted FIFO is empty.
func (s *Server) Handle(fn func(req ChatRequest) Turn) { s.book.Handle(fn) }

// FailEmbeddings makes the next embedding requests fail, one fault each.
func (s *Server) FailEmbeddings(faults ...Fault) { s.book.QueueFaults(faults...) }

// Pending is the number of scripted turns not consumed yet.
func (s *Server) Pending() int { return s.book.Pending() }

// Requests returns a copy of every request received, in arrival order.
func (s *Server) Requests() []Recorded { return s.book.Requests() }

// ChatRequests returns the decoded body of every chat request, in order.
func (s *Server) ChatRequests() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.book.Requests() {
		if r.Chat != nil {
			out = append(out, *r.Chat)
		}
	}
	return out
}

// Problems lists script misuse the server detected; New reports them.
func (s *Server) Problems() []string { return s.book.Problems() }

func (s *Server) record(r *http.Request, body []byte, chat *ChatRequest) int {
	return s.book.Record(Recorded{Method: r.Method, Path: r.URL.Path, Body: body, Authorization: r.Header.Get("Authorization"), Chat: chat})
}

func (s *Server) setOutcome(i, status int, f Fault) {
	s.book.Update(i, func(r *Recorded) { r.Status, r.Fault = status, f })
}

func (s *Server) problem(format string, args ...any) string {
	return s.book.Problem(format, args...)
}

func (s *Server) nextTurn(req ChatRequest) (Turn, bool) { return s.book.Next(req) }

// authorized checks the key; a wrong one is answered 401 as OpenAI does,
// echoing the key it got (so clients must scrub what servers send back).
func (s *Server) authorized(w http.ResponseWriter, r *http.Request, i int) bool {
	if s.key == "" {
		return true
	}
	got := r.Header.Get("Authorization")
	if got == "Bearer "+s.key {
		return true
	}
	s.setOutcome(i, http.StatusUnauthorized, FaultUnauthorized)
	msg := "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
	if got != "" {
		msg = fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.", got[len("Bearer "):])
	}
	writeError(w, http.StatusUnauthorized, msg, "invalid_request_error", "invalid_api_key")
	return false
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	i := s.record(r, nil, nil)
	if !s.authorized(w, r, i) {
		return
	}
	type entry struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	data := make([]entry, 0, len(s.models))
	for _, m := range s.models {
		data = append(data, entry{ID: m, Object: "model", Created: Created, OwnedBy: "openaitest"})
	}
	s.setOutcome(i, http.StatusOK, FaultNone)
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	i := s.record(r, body, nil)
	if !s.authorized(w, r, i) {
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeError(w, http.StatusBadRequest, err.Error(), "invalid_request_error", "")
		return
	}
	if !slices.Contains(s.models, req.Model) {
		s.setOutcome(i, http.StatusNotFound, FaultModelNotFound)
		writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model), "invalid_request_error", "model_not_found")
		return
	}
	if fault, ok := s.book.NextFault(); ok && fault != FaultNone {
		s.setOutcome(i, http.StatusInternalServerError, fault)
		writeError(w, http.StatusInternalServerError, DefaultServerError, "server_error", "")
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			s.setOutcome(i, http.StatusBadRequest, FaultNone)
			writeError(w, http.StatusBadRequest, "'input' must be a string or an array of strings", "invalid_request_error", "")
			return
		}
		inputs = []string{one}
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, 0, len(inputs))
	for k, in := range inputs {
		data = append(data, item{Object: "embedding", Index: k, Embedding: s.embed(req.Model, in)})
	}
	s.setOutcome(i, http.StatusOK, FaultNone)
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model, "usage": map[string]int{"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in OpenAI's error shape.
func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

// writeParamError answers 400 unsupported_parameter naming param, as OpenAI does.
func writeParamError(w http.ResponseWriter, msg, param string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}})
}
