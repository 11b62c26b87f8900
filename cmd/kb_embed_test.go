package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// kb index embeds through the configured model and reports it; a second
// index embeds only the changed file; with Ollama down it still indexes.
func TestKBIndexEmbeds(t *testing.T) {
	dir := t.TempDir()
	env := diagnoseEnv(t)
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "bge-m3:latest", Capabilities: []string{"embedding"}}))
	env["OLLAMA_HOST"] = srv.URL()
	mustWrite(t, filepath.Join(dir, "runbooks", "a.md"), "# Alpha\n\n## One\nfirst\n\n## Two\nsecond\n")
	mustWrite(t, filepath.Join(dir, "runbooks", "b.md"), "# Beta\n\nbody\n")
	cfg := filepath.Join(dir, "superbiz.toml")
	mustWrite(t, cfg, "[knowledge]\npaths = [\"./runbooks\"]\nembed_model = \"bge-m3\"\n")
	code, out, errOut := cli(t, env, "--config", cfg, "kb", "index", "-o", "json")
	var st kbIndexOutput
	if err := json.Unmarshal([]byte(out), &st); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	if st.Embedding == nil || st.Embedding.Model != "bge-m3" || st.Embedding.Embedded != st.TotalSections || st.Embedding.Missing != 0 {
		t.Fatalf("embedding %+v, total %d", st.Embedding, st.TotalSections)
	}
	p := filepath.Join(dir, "runbooks", "b.md")
	mustWrite(t, p, "# Beta\n\nnew body\n")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.Contains(out, "embedded 1 sections with bge-m3; 0 without vectors") {
		t.Errorf("second index: exit %d, %q", code, out)
	}
	env["OLLAMA_HOST"] = closedPort(t)
	mustWrite(t, p, "# Beta\n\nthird body\n")
	later = later.Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.Contains(out, "embedded 0 sections with bge-m3; 1 without vectors (search uses BM25 for them; retried on the next sync): model server unreachable") {
		t.Errorf("ollama down: exit %d, %q %q", code, out, errOut)
	}
	if code, out, _ := cli(t, env, "--config", cfg, "kb", "search", "third body"); code != ExitOK || !strings.Contains(out, "b.md") {
		t.Errorf("search with ollama down: exit %d, %q", code, out)
	}
}
