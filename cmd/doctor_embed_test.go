package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

func TestDoctorEmbedModel(t *testing.T) {
	chat := ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}}
	embed := ollamatest.Model{Name: "bge-m3:latest", Capabilities: []string{"embedding"}}
	tests := []struct {
		name   string
		config string // the [knowledge] table's extra line
		models []ollamatest.Model
		down   bool
		mark   string
		detail string
		hint   string
	}{
		{"not configured", "", []ollamatest.Model{chat}, false, "skip", "not configured: runbook search is BM25 only", ""},
		{"ok", `embed_model = "bge-m3"`, []ollamatest.Model{chat, embed}, false, "ok  ", "bge-m3 embeds (64 dimensions)", ""},
		{"model missing", `embed_model = "bge-m3"`, []ollamatest.Model{chat}, false, "warn", "bge-m3 unavailable, runbook search is BM25 only", "hint: run `ollama pull bge-m3`"},
		{"model cannot embed", `embed_model = "qwen3:8b"`, []ollamatest.Model{chat}, false, "warn", "does not support embeddings", "hint: run `ollama pull qwen3:8b`"},
		{"ollama down", `embed_model = "bge-m3"`, nil, true, "warn", "bge-m3 unavailable, runbook search is BM25 only", "hint: start Ollama with `ollama serve` (then `ollama pull bge-m3`)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := testenv.ClosedURL(t)
			if !tt.down {
				host = ollamatest.New(t, ollamatest.WithModels(tt.models...)).URL()
			}
			env, dir := doctorEnv(t, host)
			if err := os.MkdirAll(filepath.Join(dir, "runbooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "runbooks", "disk.md"), []byte("# Disk full\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := "[knowledge]\npaths = [\"runbooks\"]\n" + tt.config + "\n"
			if err := os.WriteFile(filepath.Join(dir, "superbiz.toml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			_, out, _ := cli(t, env, "doctor")
			if l := line(t, out, tt.mark, "knowledge embed"); !strings.Contains(l, tt.detail) {
				t.Errorf("line %q lacks %q", l, tt.detail)
			}
			if tt.hint != "" {
				if h := hintAfter(t, out, "knowledge embed"); !strings.Contains(h, tt.hint) {
					t.Errorf("hint %q lacks %q", h, tt.hint)
				}
			}
		})
	}
}
