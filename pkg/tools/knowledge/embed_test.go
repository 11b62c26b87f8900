package knowledge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/ollama"
)

const testEmbedModel = "bge-m3"

// concepts are the axes of the scripted embedding: words of one concept,
// however a runbook or a question puts it, land on the same axis, so a
// paraphrase sharing no word with a runbook is still near it.
var concepts = [][]string{
	{"disk", "volume", "storage", "space", "room", "enospc", "full"},
	{"mysql", "connection", "connections", "pool", "database"},
	{"tls", "certificate", "cert", "handshake", "x509", "expired"},
}

// conceptVector is the scripted /api/embed answer: one count per concept.
func conceptVector(_, text string) []float32 {
	v := make([]float32, len(concepts)+1)
	v[len(concepts)] = 0.1 // never a zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	}) {
		for i, c := range concepts {
			if slices.Contains(c, w) {
				v[i]++
			}
		}
	}
	return ollamatest.Normalize(v)
}

// embedServer is an Ollama test server with the embedding model pulled and
// the concept embedding scripted.
func embedServer(t *testing.T) *ollamatest.Server {
	t.Helper()
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: testEmbedModel + ":latest", Capabilities: []string{"embedding"}}))
	s.EmbedWith(conceptVector)
	return s
}

// embedder is the real Ollama adapter pointed at host.
func embedder(t *testing.T, host string) *ollama.Client {
	t.Helper()
	c, err := ollama.New(ollama.Options{Host: host, Model: testEmbedModel, NumCtx: 2048, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("ollama.New: %v", err)
	}
	return c
}

// embedInputs counts the texts the server was asked to embed.
func embedInputs(t *testing.T, s *ollamatest.Server) int {
	t.Helper()
	n := 0
	for _, r := range s.EmbedRequests() {
		in, err := r.Inputs()
		if err != nil {
			t.Fatalf("embed request: %v", err)
		}
		n += len(in)
	}
	return n
}

// The paraphrase shares no word with the disk runbook: BM25 cannot find
// it, the fused search puts it first.
func TestEmbedFindsParaphrase(t *testing.T) {
	const query = "storage room gone"
	dir := copyDir(t, "testdata/embed")
	db := openDB(t)
	plain := NewIndex(db, []string{dir})
	mustSync(t, plain)
	if docs := search(t, plain, query, 3); len(docs) != 0 {
		t.Fatalf("fixture broken: BM25 already finds %v for %q", sources(docs), query)
	}

	s := embedServer(t)
	ix := NewIndex(db, []string{dir}).WithEmbedder(testEmbedModel, embedder(t, s.URL()))
	st := mustSync(t, ix)
	if st.Embedding == nil || st.Embedding.Embedded != st.Total || st.Embedding.Missing != 0 || st.Embedding.Error != "" {
		t.Fatalf("embedding %+v, want all %d sections embedded", st.Embedding, st.Total)
	}
	docs := search(t, ix, query, 3)
	if len(docs) == 0 || !strings.HasSuffix(docs[0].Source, "disk-full.md") {
		t.Fatalf("fused search for %q: %v, want disk-full.md first", query, sources(docs))
	}
	// A query both rankings agree on keeps its runbook first.
	if docs := search(t, ix, "mysql connection pool exhausted", 3); len(docs) == 0 || !strings.HasSuffix(docs[0].Source, "mysql-pool.md") {
		t.Fatalf("fused search: %v, want mysql-pool.md first", sources(docs))
	}
	// A question about nothing in the runbooks still finds nothing.
	if docs := search(t, ix, "kafka partition lag", 3); len(docs) != 0 {
		t.Fatalf("unrelated query found %v", sources(docs))
	}
}

// A search query is masked before it is sent to /api/embed (issue 17:
// kb search sent the raw query).
func TestEmbedQueryMasked(t *testing.T) {
	const secret = "Zq8vR2mK7pX4"
	dir := copyDir(t, "testdata/embed")
	s := embedServer(t)
	ix := NewIndex(openDB(t), []string{dir}).WithEmbedder(testEmbedModel, embedder(t, s.URL()))
	mustSync(t, ix)
	before := len(s.EmbedRequests())
	search(t, ix, "mysql pool password="+secret+" curl -u admin:"+secret, 3)
	reqs := s.EmbedRequests()
	if len(reqs) != before+1 {
		t.Fatalf("%d search-time embed requests, want 1", len(reqs)-before)
	}
	in, err := reqs[len(reqs)-1].Inputs()
	if err != nil || len(in) != 1 {
		t.Fatalf("inputs %v %v", in, err)
	}
	if strings.Contains(in[0], secret) || !strings.Contains(in[0], egress.Marker) || !strings.Contains(in[0], "mysql pool") {
		t.Fatalf("query sent to /api/embed: %q", in[0])
	}
}

// Only the sections of the changed file are embedded again.
func TestEmbedIncremental(t *testing.T) {
	dir := copyDir(t, "testdata/embed")
	s := embedServer(t)
	ix := NewIndex(openDB(t), []string{dir}).WithEmbedder(testEmbedModel, embedder(t, s.URL()))
	first := mustSync(t, ix)
	if got := embedInputs(t, s); got != first.Total {
		t.Fatalf("first sync embedded %d texts, want %d", got, first.Total)
	}
	if st := mustSync(t, ix); st.Embedding.Embedded != 0 || embedInputs(t, s) != first.Total {
		t.Fatalf("unchanged sync embedded %d (server saw %d texts)", st.Embedding.Embedded, embedInputs(t, s))
	}
	p := filepath.Join(dir, "cert-expiry.md")
	if err := os.WriteFile(p, []byte("# TLS certificate expired\n\n## Renew\n\nRun cert-manager renew.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	st := mustSync(t, ix)
	if st.Indexed != 1 || st.Embedding.Embedded != st.Sections || st.Embedding.Missing != 0 {
		t.Fatalf("after one change: %+v embedding %+v", st, st.Embedding)
	}
	reqs := s.EmbedRequests()
	last, err := reqs[len(reqs)-1].Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if got := embedInputs(t, s) - first.Total; got != st.Sections {
		t.Fatalf("second sync embedded %d texts, want the changed file's %d sections", got, st.Sections)
	}
	for _, in := range last {
		if !strings.Contains(in, "TLS certificate expired") {
			t.Errorf("embedded %q, which is not a section of the changed file", in)
		}
	}
}

// A failing model never fails the sync; the next sync retries exactly the
// sections left without vectors.
func TestEmbedRetriesMissing(t *testing.T) {
	dir := copyDir(t, "testdata/embed")
	s := embedServer(t)
	ix := NewIndex(openDB(t), []string{dir}).WithEmbedder(testEmbedModel, embedder(t, s.URL()))
	s.FailEmbed(ollamatest.FaultHTTP500Body)
	st := mustSync(t, ix)
	if st.Embedding.Embedded != 0 || st.Embedding.Missing != st.Total || !strings.Contains(st.Embedding.Error, "unexpected EOF") {
		t.Fatalf("failed embedding reported as %+v (total %d)", st.Embedding, st.Total)
	}
	st = mustSync(t, ix)
	if st.Embedding.Embedded != st.Total || st.Embedding.Missing != 0 || st.Embedding.Error != "" {
		t.Fatalf("retry: %+v (total %d)", st.Embedding, st.Total)
	}
}

// Without a working embedding model, search is BM25 exactly.
func TestEmbedUnavailableIsBM25(t *testing.T) {
	queries := []string{"mysql connection pool", "certificate expired", "disk volume full", "storage room gone", "restart"}
	closed := ollamatest.NewServer()
	closedURL := closed.URL()
	closed.Close()
	tests := []struct {
		name string
		// setup returns the host, and the server when search-time embed
		// calls are to fail (sync-time ones then succeed).
		setup func(t *testing.T) (string, *ollamatest.Server)
	}{
		{"ollama down", func(*testing.T) (string, *ollamatest.Server) { return closedURL, nil }},
		{"model not pulled", func(t *testing.T) (string, *ollamatest.Server) {
			return ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b"})).URL(), nil
		}},
		{"model cannot embed", func(t *testing.T) (string, *ollamatest.Server) {
			return ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: testEmbedModel + ":latest", Capabilities: []string{"completion"}})).URL(), nil
		}},
		{"vectors of a million dimensions", func(t *testing.T) (string, *ollamatest.Server) {
			s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: testEmbedModel + ":latest", Capabilities: []string{"embedding"}}))
			s.EmbedWith(func(string, string) []float32 { return make([]float32, 1_000_000) })
			return s.URL(), nil
		}},
		{"server error at search", func(t *testing.T) (string, *ollamatest.Server) {
			s := embedServer(t)
			return s.URL(), s
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, "testdata/embed")
			db := openDB(t)
			plain := NewIndex(db, []string{dir})
			mustSync(t, plain)
			host, failing := tt.setup(t)
			ix := NewIndex(db, []string{dir}).WithEmbedder(testEmbedModel, embedder(t, host))
			st := mustSync(t, ix)
			if failing == nil && (st.Embedding.Error == "" || st.Embedding.Missing != st.Total) {
				t.Fatalf("embedding %+v, want an error and every section missing", st.Embedding)
			}
			if failing != nil && st.Embedding.Missing != 0 {
				t.Fatalf("embedding %+v, want every section embedded", st.Embedding)
			}
			calls := 0
			if failing != nil {
				calls = len(failing.EmbedRequests())
			}
			same := 0
			for _, q := range queries {
				want := search(t, plain, q, 3)
				if failing != nil {
					failing.FailEmbed(ollamatest.FaultHTTP500Body)
				}
				got := search(t, ix, q, 3)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%q: embed-configured search %v, BM25 %v", q, sources(got), sources(want))
					continue
				}
				same++
			}
			if failing != nil && len(failing.EmbedRequests())-calls != len(queries) {
				t.Errorf("%d search-time embed calls for %d queries", len(failing.EmbedRequests())-calls, len(queries))
			}
			reliability.Record(t, reliability.SectionModel, "embedding model fault: "+tt.name, map[string]any{
				"sections": st.Total, "missing vectors": st.Embedding.Missing, "sync failed": false,
				"queries": len(queries), "identical to BM25": same,
			})
		})
	}
}

// BenchmarkNearest20k is the vector half of a fused search at its bound:
// brute-force cosine over MaxVectorSections stored 1,024-dimension vectors.
func BenchmarkNearest20k(b *testing.B) {
	const dim = 1024
	db := openDB(b)
	ix := NewIndex(db, nil).WithEmbedder(testEmbedModel, nil)
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO kb_files(path, root, size, mtime_ns, sha256, indexed_at) VALUES('r/a.md', '/r', 1, 1, 'x', 1)`); err != nil {
		b.Fatal(err)
	}
	for id := 1; id <= MaxVectorSections; id++ {
		if _, err := tx.Exec(`INSERT INTO kb_sections(id, doc_id, file_path, anchor, title, source, body, ord) VALUES(?, ?, 'r/a.md', ?, 't', 'r/a.md', 'b', ?)`,
			id, fmt.Sprintf("r/a.md#s%d", id), fmt.Sprintf("s%d", id), id); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	ids := make([]int64, 0, 500)
	vecs := make([][]float32, 0, 500)
	for id := int64(1); id <= MaxVectorSections; id++ {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32((int(id)*31+i*17)%97) / 97
		}
		ids, vecs = append(ids, id), append(vecs, v)
		if len(ids) == cap(ids) || id == MaxVectorSections {
			if err := ix.storeVectors(context.Background(), ids, vecs); err != nil {
				b.Fatal(err)
			}
			ids, vecs = ids[:0], vecs[:0]
		}
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(i%13) / 13
	}
	b.ResetTimer()
	for b.Loop() {
		if _, ok, err := ix.nearest(context.Background(), q, 12); err != nil || !ok {
			b.Fatalf("nearest: %v %v", ok, err)
		}
	}
}

// An embedding server answering vectors past model.MaxEmbedDim stores
// nothing: every section is counted missing with the bound as the reason,
// and the store holds no vector.
func TestEmbedOversizedVectorsRefused(t *testing.T) {
	dir := copyDir(t, "testdata/embed")
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: testEmbedModel + ":latest", Capabilities: []string{"embedding"}}))
	s.EmbedWith(func(string, string) []float32 { return make([]float32, model.MaxEmbedDim+1) })
	db := openDB(t)
	ix := NewIndex(db, []string{dir}).WithEmbedder(testEmbedModel, embedder(t, s.URL()))
	st := mustSync(t, ix)
	if st.Embedding.Embedded != 0 || st.Embedding.Missing != st.Total || !strings.Contains(st.Embedding.Error, "more than 8192 dimensions") {
		t.Fatalf("embedding %+v (total %d), want every section missing for the dimension bound", st.Embedding, st.Total)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM kb_vectors`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d vectors stored (%v), want none", n, err)
	}
	reliability.Record(t, reliability.SectionModel, "embedding vectors over 8192 dimensions", map[string]any{
		"sections": st.Total, "missing vectors": st.Embedding.Missing, "vectors stored": n, "sync failed": false,
	})
}
