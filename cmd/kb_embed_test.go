package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/internal/testenv"
	openaiwire "github.com/superbiz/superbiz/pkg/model/openai"
)

// kb index embeds through the configured model and reports it; a second
// index embeds only the changed file; with Ollama down it still indexes.
func TestKBIndexEmbeds(t *testing.T) {
	dir := t.TempDir()
	env := diagnoseEnv(t)
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "bge-m3:latest", Capabilities: []string{"embedding"}}))
	env["OLLAMA_HOST"] = srv.URL()
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "a.md"), "# Alpha\n\n## One\nfirst\n\n## Two\nsecond\n")
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "b.md"), "# Beta\n\nbody\n")
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, "[knowledge]\npaths = [\"./runbooks\"]\nembed_model = \"bge-m3\"\n")
	code, out, errOut := cli(t, env, "--config", cfg, "kb", "index", "-o", "json")
	var st kbIndexOutput
	if err := json.Unmarshal([]byte(out), &st); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	if st.Embedding == nil || st.Embedding.Model != "bge-m3" || st.Embedding.Embedded != st.TotalSections || st.Embedding.Missing != 0 {
		t.Fatalf("embedding %+v, total %d", st.Embedding, st.TotalSections)
	}
	p := filepath.Join(dir, "runbooks", "b.md")
	rewrite(t, p, "# Beta\n\nnew body\n", time.Hour)
	code, out, _ = cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.Contains(out, "embedded 1 sections with bge-m3; 0 without vectors") {
		t.Errorf("second index: exit %d, %q", code, out)
	}
	env["OLLAMA_HOST"] = testenv.ClosedURL(t)
	rewrite(t, p, "# Beta\n\nthird body\n", 2*time.Hour)
	code, out, errOut = cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.Contains(out, "embedded 0 sections with bge-m3; 1 without vectors (search uses BM25 for them; retried on the next sync): model server unreachable") {
		t.Errorf("ollama down: exit %d, %q %q", code, out, errOut)
	}
	if code, out, _ := cli(t, env, "--config", cfg, "kb", "search", "third body"); code != ExitOK || !strings.Contains(out, "b.md") {
		t.Errorf("search with ollama down: exit %d, %q", code, out)
	}
}

// With model.provider = "openai", kb index embeds every section through the
// server's /embeddings and kb search embeds the query there too; when the
// server fails, the changed section is indexed without a vector, the index
// says how many and why, and search answers from BM25.
func TestKBIndexEmbedsOpenAI(t *testing.T) {
	dir := t.TempDir()
	env := diagnoseEnv(t)
	srv := openaitest.New(t, openaitest.WithModels("bge-m3"))
	env[config.EnvProvider] = config.ProviderOpenAI
	env[openaiwire.EnvBaseURL] = srv.URL()
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "a.md"), "# Alpha\n\n## One\nfirst\n\n## Two\nsecond\n")
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "b.md"), "# Beta\n\nbody\n")
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, "[knowledge]\npaths = [\"./runbooks\"]\nembed_model = \"bge-m3\"\n")
	answered := func(status int) (n int) {
		for _, r := range srv.Requests() {
			if r.Path == "/v1/embeddings" && r.Status == status {
				n++
			}
		}
		return n
	}
	embeds := func() int { return answered(200) }
	code, out, errOut := cli(t, env, "--config", cfg, "kb", "index", "-o", "json")
	var st kbIndexOutput
	if err := json.Unmarshal([]byte(out), &st); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, errOut)
	}
	if st.Embedding == nil || st.Embedding.Model != "bge-m3" || st.Embedding.Embedded != st.TotalSections || st.Embedding.Missing != 0 || embeds() == 0 {
		t.Fatalf("embedding %+v, total %d, %d embedding answers", st.Embedding, st.TotalSections, embeds())
	}
	before := embeds()
	if code, out, _ := cli(t, env, "--config", cfg, "kb", "search", "second"); code != ExitOK || !strings.Contains(out, "a.md") || embeds() != before+1 {
		t.Fatalf("search: exit %d, %d query embeddings (want 1), %q", code, embeds()-before, out)
	}
	// The server fails every embedding from now on.
	srv.FailEmbeddings(openaitest.FaultServerError, openaitest.FaultServerError, openaitest.FaultServerError, openaitest.FaultServerError)
	rewrite(t, filepath.Join(dir, "runbooks", "b.md"), "# Beta\n\nthird body\n", time.Hour)
	code, out, errOut = cli(t, env, "--config", cfg, "kb", "index")
	want := "embedded 0 sections with bge-m3; 1 without vectors (search uses BM25 for them; retried on the next sync): model server error"
	if code != ExitOK || !strings.Contains(out, want) || !strings.Contains(out, "HTTP 500") {
		t.Errorf("server failing: exit %d, %q %q; want %q", code, out, errOut, want)
	}
	if code, out, _ := cli(t, env, "--config", cfg, "kb", "search", "third body"); code != ExitOK || !strings.Contains(out, "b.md") || answered(500) != 3 {
		t.Errorf("search with the server failing: exit %d, %d failed embeddings (want 3: the index's, the search's sync retrying the section, the query's), %q", code, answered(500), out)
	}
}

// rewrite writes body to p dated ahead by `ahead`, so the next sync sees the
// file changed whatever the file system's time resolution.
func rewrite(t *testing.T, p, body string, ahead time.Duration) {
	t.Helper()
	fixture.WriteFile(t, p, body)
	at := time.Now().Add(ahead)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}
