package ollamatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode"
)

// EmbedRequest is the body of one POST /api/embed as the client sent it
// (api.EmbedRequest's wire form): input is a string or an array of strings.
type EmbedRequest struct {
	Model      string          `json:"model"`
	Input      json.RawMessage `json:"input"`
	Truncate   *bool           `json:"truncate,omitempty"`
	Dimensions int             `json:"dimensions,omitempty"`
	KeepAlive  json.RawMessage `json:"keep_alive,omitempty"`
	Options    map[string]any  `json:"options"`
}

// Inputs decodes input as the server does: one string, an array of
// strings, or absent (no inputs); anything else is "invalid input type".
func (r EmbedRequest) Inputs() ([]string, error) {
	if len(r.Input) == 0 || string(r.Input) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(r.Input, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(r.Input, &many); err != nil {
		return nil, errors.New("invalid input type")
	}
	return many, nil
}

// embedResponse mirrors api.EmbedResponse's JSON encoding.
type embedResponse struct {
	Model           string      `json:"model"`
	Embeddings      [][]float32 `json:"embeddings"`
	TotalDuration   int64       `json:"total_duration,omitempty"`
	LoadDuration    int64       `json:"load_duration,omitempty"`
	PromptEvalCount int         `json:"prompt_eval_count,omitempty"`
}

// EmbedNotSupported is what a real server answers (400) when the model
// cannot embed.
const EmbedNotSupported = "this model does not support embeddings"

// VectorDims is the dimension of the vectors Vector returns.
const VectorDims = 64

// Vector is the default scripted embedding: each lower-cased word of text
// (letters and digits) is hashed to one of VectorDims axes, and the counts
// are normalised to unit length. It is deterministic, so texts sharing
// words are close and texts sharing none are orthogonal.
func Vector(_, text string) []float32 {
	v := make([]float32, VectorDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w)) // a hash's Write never fails
		v[h.Sum32()%VectorDims]++
	}
	return Normalize(v)
}

// Normalize scales v to unit length (a zero vector stays zero).
func Normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	n := float32(math.Sqrt(sum))
	for i := range v {
		v[i] /= n
	}
	return v
}

// EmbedWith replaces the vector function (Vector by default), e.g. with one
// that maps paraphrases to near vectors. fn gets the model and one input.
func (s *Server) EmbedWith(fn func(model, text string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedVec = fn
}

// FailEmbed queues faults that the next /api/embed requests answer with,
// one per request, before normal answers resume. FaultHTTP500Body,
// FaultHTTP500Empty, FaultModelNotFound, FaultEmbeddingsNotSupported,
// FaultBadRequest, FaultProxyHTML and FaultHTMLPage apply.
func (s *Server) FailEmbed(faults ...Fault) { s.book.QueueFaults(faults...) }

// EmbedRequests returns the decoded body of every /api/embed request, in
// order, so tests can count calls and see which texts were embedded.
func (s *Server) EmbedRequests() []EmbedRequest {
	var out []EmbedRequest
	for _, r := range s.book.Requests() {
		if r.Path != "/api/embed" {
			continue
		}
		var req EmbedRequest
		if json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req)
		}
	}
	return out
}

func (s *Server) nextEmbed() (Fault, func(model, text string) []float32) {
	f, ok := s.book.NextFault()
	if !ok {
		f = FaultNone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fn := s.embedVec
	if fn == nil {
		fn = Vector
	}
	return f, fn
}

// serveEmbed answers POST /api/embed as Ollama's EmbedHandler does: 400 for
// a missing body or a bad input type, 404 for a model that is not pulled,
// 400 for a model without the "embedding" capability, an empty list for no
// input, else one vector per input.
func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	i := s.record(r, body, nil)
	fail := func(status int, f Fault, msg string) {
		s.setOutcome(i, status, f)
		writeJSON(w, status, errorBody{Error: msg})
	}
	if err != nil {
		fail(http.StatusBadRequest, FaultNone, err.Error())
		return
	}
	if len(body) == 0 {
		fail(http.StatusBadRequest, FaultNone, "missing request body")
		return
	}
	var req EmbedRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, FaultNone, err.Error())
		return
	}
	inputs, err := req.Inputs()
	if err != nil {
		fail(http.StatusBadRequest, FaultNone, err.Error())
		return
	}
	m, ok := s.lookupModel(req.Model)
	if !ok {
		fail(http.StatusNotFound, FaultNone, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	fault, vec := s.nextEmbed()
	switch fault {
	case FaultHTTP500Body:
		fail(http.StatusInternalServerError, fault, DefaultServerError)
		return
	case FaultHTTP500Empty:
		s.setOutcome(i, http.StatusInternalServerError, fault)
		w.WriteHeader(http.StatusInternalServerError)
		return
	case FaultModelNotFound:
		fail(http.StatusNotFound, fault, fmt.Sprintf("model '%s' not found", req.Model))
		return
	case FaultEmbeddingsNotSupported:
		fail(http.StatusBadRequest, fault, EmbedNotSupported)
		return
	case FaultBadRequest:
		fail(http.StatusBadRequest, fault, DefaultBadRequest)
		return
	case FaultProxyHTML:
		s.setOutcome(i, http.StatusBadGateway, fault)
		writeHTML(w, http.StatusBadGateway, ProxyHTML)
		return
	case FaultHTMLPage:
		s.setOutcome(i, http.StatusOK, fault)
		writeHTML(w, http.StatusOK, HTMLPage)
		return
	}
	if !slices.Contains(m.Capabilities, "embedding") {
		fail(http.StatusBadRequest, FaultNone, EmbedNotSupported)
		return
	}
	out := embedResponse{Model: req.Model, Embeddings: [][]float32{}, TotalDuration: 1_250_000, LoadDuration: 250_000}
	for _, text := range inputs {
		v := vec(req.Model, text)
		if req.Dimensions > 0 && req.Dimensions < len(v) {
			v = Normalize(slices.Clone(v[:req.Dimensions]))
		}
		out.Embeddings = append(out.Embeddings, v)
		out.PromptEvalCount += len(strings.Fields(text))
	}
	s.setOutcome(i, http.StatusOK, FaultNone)
	writeJSON(w, http.StatusOK, out)
}
