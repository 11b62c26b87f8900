// Package ollamatest is a protocol-faithful Ollama test server: scripted
// /api/chat turns streamed in Ollama's real NDJSON wire format, /api/embed
// with scripted vectors, /api/tags,
// /api/show with capabilities, /api/version, fault injection, and a record of
// every request so tests can assert exactly what the model was sent. It is a
// real HTTP server, usable from any package's tests (New) and outside tests
// (NewServer), e.g. as the --host of an end-to-end run of the binary.
package ollamatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/wirebook"
)

// DefaultModel is the one model a server has when WithModels is not given.
const DefaultModel = "qwen3:8b"

// DefaultVersion is what /api/version reports unless WithVersion is given.
const DefaultVersion = "0.17.4"

// Recorded is one request the server received, kept so tests can assert on
// the traffic (including requests that were answered with an error).
type Recorded struct {
	Method string
	Path   string
	Body   []byte
	// Chat is the decoded body of a POST /api/chat (nil for other paths or
	// when the body did not decode).
	Chat *ChatRequest
	// Status is the HTTP status the server answered (200 for streams, even
	// those cut or failed mid-way).
	Status int
	// Fault is the fault injected for this request, if any.
	Fault Fault
}

// Option configures a Server.
type Option func(*config)

type config struct {
	models  []Model
	version string
	now     func() time.Time
}

// WithModels replaces the default model list; chats for any other model are
// answered 404 like a real server without that model pulled.
func WithModels(models ...Model) Option {
	return func(c *config) { c.models = slices.Clone(models) }
}

// WithVersion sets the version /api/version reports.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithClock fixes created_at (and modified_at) so streams are reproducible.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// Server is the running test server. All methods are safe for concurrent use.
type Server struct {
	cfg config
	srv *httptest.Server

	book wirebook.Book[Turn, ChatRequest, Recorded, Fault]
	// mu guards embedVec, the vector function /api/embed answers with
	// (its queued faults are in book).
	mu       sync.Mutex
	embedVec func(model, text string) []float32
}

// New starts a server for one test; it is closed, and any script problem
// (an exhausted script, invalid scripted arguments) reported as a test
// error, when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := NewServer(opts...)
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("ollamatest: %s", p)
		}
	})
	return s
}

// NewServer starts a server without a testing.TB; the caller must Close it.
func NewServer(opts ...Option) *Server {
	cfg := config{
		models:  []Model{{Name: DefaultModel, Capabilities: []string{"completion", "tools", "thinking"}}},
		version: DefaultVersion,
		now:     time.Now,
	}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.serveChat)
	mux.HandleFunc("GET /api/tags", s.serveTags)
	mux.HandleFunc("POST /api/show", s.serveShow)
	mux.HandleFunc("POST /api/embed", s.serveEmbed)
	mux.HandleFunc("GET /api/version", s.serveVersion)
	mux.HandleFunc("/{$}", s.serveRoot)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the base URL to give the client (e.g. "http://127.0.0.1:40123").
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down, cutting any stream still open.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script appends turns to the FIFO that successive /api/chat calls consume.
func (s *Server) Script(turns ...Turn) { s.book.Script(turns...) }

// Handle computes a turn from the request once the scripted FIFO is empty,
// for tests whose answer depends on what was sent (e.g. echoing IDs).
func (s *Server) Handle(fn func(req ChatRequest) Turn) { s.book.Handle(fn) }

// Pending is the number of scripted turns not consumed yet.
func (s *Server) Pending() int { return s.book.Pending() }

// Requests returns a copy of every request received, in arrival order.
func (s *Server) Requests() []Recorded { return s.book.Requests() }

// ChatRequests returns the decoded body of every /api/chat request, in order.
func (s *Server) ChatRequests() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.book.Requests() {
		if r.Chat != nil {
			out = append(out, *r.Chat)
		}
	}
	return out
}

// ChatCount is the number of /api/chat requests received.
func (s *Server) ChatCount() int {
	n := 0
	for _, r := range s.book.Requests() {
		if r.Path == "/api/chat" {
			n++
		}
	}
	return n
}

// Problems lists script misuse the server detected (script exhausted,
// invalid scripted arguments); New reports them as test errors.
func (s *Server) Problems() []string { return s.book.Problems() }

func (s *Server) record(r *http.Request, body []byte, chat *ChatRequest) int {
	return s.book.Record(Recorded{Method: r.Method, Path: r.URL.Path, Body: body, Chat: chat})
}

func (s *Server) setOutcome(i, status int, f Fault) {
	s.book.Update(i, func(r *Recorded) { r.Status, r.Fault = status, f })
}

func (s *Server) problem(format string, args ...any) string {
	return s.book.Problem(format, args...)
}

// nextTurn pops the FIFO, falls back to the handler, or reports exhaustion.
func (s *Server) nextTurn(req ChatRequest) (Turn, bool) { return s.book.Next(req) }

// lookupModel resolves a name as Ollama does for local models: an absent tag
// means ":latest".
func (s *Server) lookupModel(name string) (Model, bool) {
	for _, m := range s.cfg.models {
		if m.Name == name || (!strings.Contains(name, ":") && m.Name == name+":latest") {
			return m, true
		}
	}
	return Model{}, false
}

// qualifiedName is the registry form Ollama uses in capability errors.
func qualifiedName(name string) string {
	if !strings.Contains(name, ":") {
		name += ":latest"
	}
	if !strings.Contains(name, "/") {
		name = "library/" + name
	}
	if strings.Count(name, "/") < 2 {
		name = "registry.ollama.ai/" + name
	}
	return name
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	// Encoding errors here mean the client went away; nothing to report to.
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) serveRoot(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil, nil)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "Ollama is running")
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	i := s.record(r, nil, nil)
	s.setOutcome(i, http.StatusOK, FaultNone)
	writeJSON(w, http.StatusOK, map[string]string{"version": s.cfg.version})
}

func (s *Server) serveTags(w http.ResponseWriter, r *http.Request) {
	i := s.record(r, nil, nil)
	models := make([]listModel, 0, len(s.cfg.models))
	for _, m := range s.cfg.models {
		models = append(models, listModel{
			Name: m.Name, Model: m.Name, ModifiedAt: s.cfg.now().UTC(),
			Size: 5225388164, Digest: fakeDigest(m.Name),
			Details: details(m.Name),
		})
	}
	s.setOutcome(i, http.StatusOK, FaultNone)
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (s *Server) serveShow(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	i := s.record(r, body, nil)
	if err != nil {
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeJSON(w, http.StatusBadRequest, errorBody{Error: err.Error()})
		return
	}
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeJSON(w, http.StatusBadRequest, errorBody{Error: err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if name == "" {
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeJSON(w, http.StatusBadRequest, errorBody{Error: "model is required"})
		return
	}
	m, ok := s.lookupModel(name)
	if !ok {
		s.setOutcome(i, http.StatusNotFound, FaultNone)
		writeJSON(w, http.StatusNotFound, errorBody{Error: fmt.Sprintf("model '%s' not found", name)})
		return
	}
	s.setOutcome(i, http.StatusOK, FaultNone)
	writeJSON(w, http.StatusOK, showResponse{
		Modelfile:    "# Modelfile generated by ollamatest\nFROM " + m.Name + "\n",
		Details:      details(m.Name),
		ModelInfo:    map[string]any{"general.architecture": family(m.Name), "general.context_length": 40960},
		Capabilities: m.Capabilities,
		ModifiedAt:   s.cfg.now().UTC(),
	})
}

func family(name string) string {
	f, _, _ := strings.Cut(name, ":")
	return f
}

func details(name string) modelDetails {
	return modelDetails{Format: "gguf", Family: family(name), Families: []string{family(name)}, ParameterSize: "8.2B", QuantizationLevel: "Q4_K_M"}
}

func fakeDigest(name string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 64)
	for i := range b {
		b[i] = hex[(int(name[i%len(name)])+i)%16]
	}
	return string(b)
}
