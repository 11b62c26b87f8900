package ollamatest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestServeEmbedWire(t *testing.T) {
	s := New(t, WithModels(Model{Name: "bge-m3:latest", Capabilities: []string{"embedding"}}, Model{Name: "qwen3:8b", Capabilities: []string{"completion"}}))
	tests := []struct {
		name   string
		body   string
		status int
		want   string // substring of the response body
		n      int    // vectors expected on 200
		dims   int
	}{
		{"one string", `{"model":"bge-m3","input":"disk full"}`, 200, `"model":"bge-m3"`, 1, VectorDims},
		{"array", `{"model":"bge-m3:latest","input":["a","b","c"],"truncate":true,"keep_alive":"5m","options":{}}`, 200, `"total_duration"`, 3, VectorDims},
		{"no input", `{"model":"bge-m3"}`, 200, `"embeddings":[]`, 0, 0},
		{"dimensions", `{"model":"bge-m3","input":"x","dimensions":8}`, 200, `"embeddings"`, 1, 8},
		{"empty body", ``, 400, "missing request body", 0, 0},
		{"bad input type", `{"model":"bge-m3","input":[1,2]}`, 400, "invalid input type", 0, 0},
		{"model not pulled", `{"model":"nomic-embed-text","input":"x"}`, 404, `model 'nomic-embed-text' not found`, 0, 0},
		{"chat model", `{"model":"qwen3:8b","input":"x"}`, 400, EmbedNotSupported, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(s.URL()+"/api/embed", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(string(raw), tt.want) {
				t.Fatalf("HTTP %d %s, want %d containing %q", resp.StatusCode, raw, tt.status, tt.want)
			}
			if tt.status != 200 {
				return
			}
			var out embedResponse
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Embeddings) != tt.n || (tt.n > 0 && len(out.Embeddings[0]) != tt.dims) {
				t.Fatalf("%d vectors %v", len(out.Embeddings), out.Embeddings)
			}
		})
	}
}

func FuzzEmbedInputs(f *testing.F) {
	for _, seed := range []string{`"x"`, `["a","b"]`, `null`, ``, `[1]`, `{"a":1}`, `"\u00e9"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		in, err := EmbedRequest{Input: json.RawMessage(raw)}.Inputs()
		if err != nil && in != nil {
			t.Fatalf("inputs %q with error %v", in, err)
		}
	})
}
