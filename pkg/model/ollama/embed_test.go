package ollama

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/pkg/model"
)

const embedModel = "nomic-embed-text"

func embedClient(t *testing.T, host string) *Client {
	t.Helper()
	c, err := New(Options{Host: host, Model: embedModel, NumCtx: 2048, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func TestEmbedWire(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: embedModel + ":latest", Capabilities: []string{"embedding"}}))
	c := embedClient(t, s.URL())
	got, err := c.Embed(context.Background(), []string{"disk full", "disk full", "pool exhausted"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(got) != 3 || len(got[0]) != ollamatest.VectorDims {
		t.Fatalf("got %d vectors of %d dims", len(got), len(got[0]))
	}
	want := ollamatest.Vector(embedModel, "disk full")
	for i := range want {
		if got[0][i] != want[i] || got[1][i] != want[i] {
			t.Fatalf("vector 0 differs from the scripted one at %d", i)
		}
	}
	reqs := s.EmbedRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d embed requests, want 1 batch", len(reqs))
	}
	in, err := reqs[0].Inputs()
	if err != nil || len(in) != 3 || reqs[0].Model != embedModel || reqs[0].Truncate == nil || !*reqs[0].Truncate {
		t.Errorf("request %+v inputs %q %v", reqs[0], in, err)
	}
}

func TestEmbedFaults(t *testing.T) {
	tests := []struct {
		name   string
		models []ollamatest.Model
		fault  ollamatest.Fault
		kind   model.ErrorKind
		text   string
	}{
		{"model not pulled", []ollamatest.Model{{Name: "qwen3:8b"}}, ollamatest.FaultNone, model.ErrModelNotFound, "not found"},
		{"chat model cannot embed", []ollamatest.Model{{Name: embedModel + ":latest", Capabilities: []string{"completion"}}}, ollamatest.FaultNone, model.ErrBadRequest, "does not support embeddings"},
		{"injected 404", nil, ollamatest.FaultModelNotFound, model.ErrModelNotFound, "not found"},
		{"injected 400", nil, ollamatest.FaultEmbeddingsNotSupported, model.ErrBadRequest, "does not support embeddings"},
		{"server error", nil, ollamatest.FaultHTTP500Body, model.ErrServer, "unexpected EOF"},
		{"proxy page", nil, ollamatest.FaultProxyHTML, model.ErrServer, "502"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			models := tt.models
			if models == nil {
				models = []ollamatest.Model{{Name: embedModel + ":latest", Capabilities: []string{"embedding"}}}
			}
			s := ollamatest.New(t, ollamatest.WithModels(models...))
			s.FailEmbed(tt.fault)
			_, err := embedClient(t, s.URL()).Embed(context.Background(), []string{"x"})
			if model.KindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err %v (kind %q), want kind %s containing %q", err, model.KindOf(err), tt.kind, tt.text)
			}
		})
	}
}

func TestEmbedUnreachable(t *testing.T) {
	s := ollamatest.NewServer()
	host := s.URL()
	s.Close()
	_, err := embedClient(t, host).Embed(context.Background(), []string{"x"})
	if model.KindOf(err) != model.ErrUnreachable {
		t.Fatalf("err %v, want UNREACHABLE", err)
	}
}

// wide is an embedding of dims dimensions, each written in JSON with many
// digits, so that many of them make a large answer.
func wide(dims int) func(model, text string) []float32 {
	return func(string, string) []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = -1.2345678e-30
		}
		return v
	}
}

// Vectors past model.MaxEmbedDim and answers past model.MaxEmbedAnswer are
// refused as PROTOCOL, naming the bound; a vector at the bound is accepted.
func TestEmbedBounds(t *testing.T) {
	tests := []struct {
		name   string
		dims   int
		inputs int
		text   string // "" means accepted
	}{
		{"at the dimension bound", model.MaxEmbedDim, 2, ""},
		{"one dimension more", model.MaxEmbedDim + 1, 2, "more than 8192 dimensions"},
		{"a million dimensions", 1_000_000, 1, "more than 8192 dimensions"},
		{"answer over 16 MiB", model.MaxEmbedDim, 150, "over 16 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: embedModel + ":latest", Capabilities: []string{"embedding"}}))
			s.EmbedWith(wide(tt.dims))
			// a long timeout: the test server encodes an 18 MB answer under
			// -race, which took over a minute on a machine at load 50
			c, err := New(Options{Host: s.URL(), Model: embedModel, NumCtx: 2048, RequestTimeout: 5 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Embed(context.Background(), make([]string, tt.inputs))
			if tt.text == "" {
				if err != nil || len(got) != tt.inputs || len(got[0]) != tt.dims || got[1][tt.dims-1] != -1.2345678e-30 {
					t.Fatalf("Embed: %v (%d vectors)", err, len(got))
				}
				return
			}
			if model.KindOf(err) != model.ErrProtocol || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err %v (kind %q), want PROTOCOL saying %q", err, model.KindOf(err), tt.text)
			}
		})
	}
}
