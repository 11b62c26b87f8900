package knowledge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// bm25's term frequency counts a heading hit weightTitle times and a body
// hit once, and sections of equal length then rank by that frequency alone.
// A heading path naming the term twice (H1 and H2) against a body naming it
// k times, lengths equal: the heading wins at weight 3 over k = 5 (it would
// lose at 2) and loses at 3 to k = 7 (it would win at 4). The file names
// say nothing.
func TestSearchTitleWeight(t *testing.T) {
	filler := strings.Fields("writes wait on a slow disk under heavy load while the queue grows and the replicas fall behind")
	body := func(k int) string { // k hits of the term, always 16 words
		words := append(slices.Repeat([]string{"fsync"}, k), filler[:16-k]...)
		return strings.Join(words, " ")
	}
	tests := []struct {
		name string
		hits int // body hits of the section without the term in its headings
		want string
	}{
		{"two heading hits beat five body hits", 5, "runbooks/a.md"},
		{"seven body hits beat two heading hits", 7, "runbooks/b.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "runbooks")
			writeFile(t, dir, "a.md", "# Fsync\n\n## Fsync stalls\n\n"+body(0)+"\n")
			writeFile(t, dir, "b.md", "# Disk\n\n## Write path\n\n"+body(tt.hits)+"\n")
			for i, topic := range []string{"certificates", "dns", "memory"} { // the term stays rare
				writeFile(t, dir, fmt.Sprintf("f%d.md", i), fmt.Sprintf("# About %s\n\n## Checks\n\nLook at the %s of the node.\n", topic, topic))
			}
			ix := NewIndex(openDB(t), []string{dir})
			mustSync(t, ix)
			expectFirst(t, ix, []struct{ query, want string }{{"fsync", tt.want}})
		})
	}
}

// A section covers a query word when it holds the word's stem, whatever the
// ending either side uses: plural, -ing, -ed ("pods" is covered by "pod").
func TestCoveredForms(t *testing.T) {
	tests := []struct {
		query, text string
		want        int
	}{
		{"pods evicted", "The kubelet evicted a pod", 2},
		{"pod evictions", "pods were evicted", 1}, // eviction is not evict
		{"restarts looping", "restart loop", 2},
		{"failed backups", "the backup failing", 2},
		{"classes", "class", 1},
		{"address dns", "an address", 1}, // -ss is no plural
		{"dns", "dn", 0},                 // too short to lose its s
	}
	for _, tt := range tests {
		atoms := coverageAtoms(queryTerms(tt.query))
		if len(atoms) == 0 {
			atoms = []atom{{forms: []string{roughStem(tt.query)}}}
		}
		if n, _ := covered(roughTokens(tt.text), atoms); n != tt.want {
			t.Errorf("%q over %q covers %d, want %d", tt.query, tt.text, n, tt.want)
		}
	}
}

// Sections holding every query word come first even when more than
// topK×candidateFactor sections hold one of the words more strongly: a long
// runbook naming "gateway" and "timeout" once each beats the short pages
// that repeat only one of them (the every-term pass, before any-term).
func TestSearchEveryTermFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	long := strings.Repeat("Check the upstream pool, the retry budget and the health probes of each backend. ", 20)
	for i := range 3 {
		writeFile(t, dir, fmt.Sprintf("edge-%d.md", i), fmt.Sprintf("# Edge notes %d\n\n## Checks\n\n%sA gateway of zone %d answers 504 when the upstream timeout passes.\n", i, long, i))
	}
	for i := range 10 { // distinct texts: a repeated one is shown once
		writeFile(t, dir, fmt.Sprintf("gw-%d.md", i), fmt.Sprintf("# Gateway %d\n\n## Gateway\n\nGateway gateway gateway %d.\n", i, i))
		writeFile(t, dir, fmt.Sprintf("to-%d.md", i), fmt.Sprintf("# Timeout %d\n\n## Timeout\n\nTimeout timeout timeout %d.\n", i, i))
	}
	for i := range 30 { // both words stay rarer than half the sections
		writeFile(t, dir, fmt.Sprintf("other-%d.md", i), fmt.Sprintf("# Queue %d\n\n## Backlog\n\nConsumers lag behind producers on partition %d.\n", i, i))
	}
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	// Two words, and one CamelCase identifier of the same two parts (an
	// alert name): each searches every part first.
	for _, q := range []string{"gateway timeout", "GatewayTimeout"} {
		docs := search(t, ix, q, 3)
		if len(docs) != 3 {
			t.Fatalf("%q: got %v, want 3 documents", q, sources(docs))
		}
		for _, d := range docs {
			if !strings.HasPrefix(d.Source, "runbooks/edge-") {
				t.Fatalf("%q: got %v, want the three sections holding both words", q, sources(docs))
			}
		}
	}
}

// The vector ranking keeps the most similar first, and of equal similarity
// the lower section id (the one indexed first), so a search is the same
// every time.
func TestTopScored(t *testing.T) {
	tests := []struct {
		name string
		in   []scored
		n    int
		want []int64
	}{
		{"by similarity", []scored{{1, 0.6}, {2, 0.9}, {3, 0.7}}, 2, []int64{2, 3}},
		{"ties by id", []scored{{5, 0.8}, {2, 0.8}, {9, 0.8}, {1, 0.5}}, 3, []int64{2, 5, 9}},
		{"fewer than n", []scored{{4, 0.5}}, 3, []int64{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			for _, s := range topScored(tt.in, tt.n) {
				got = append(got, s.id)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// rrf is the documented fused score of ranks (counted from 1) as Document
// scores are given: 1/(60 + rank) summed, four significant digits.
func rrf(ranks ...int) float64 {
	var v float64
	for _, r := range ranks {
		v += 1 / float64(60+r)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return r
}

// Fused scores are the sum of 1/(60 + rank) over both rankings: sections
// found only by their vectors come in their similarity order with 1/61,
// 1/62 …, and a section first in both rankings scores 2/61.
func TestFusedScores(t *testing.T) {
	ctx := context.Background()
	dir := copyDir(t, "testdata/embed")
	s := embedServer(t)
	e := embedder(t, s.URL())
	ix := NewIndex(openDB(t), []string{dir}).WithEmbedder(testEmbedModel, e)
	mustSync(t, ix)

	const paraphrase = "storage room gone" // no word of any runbook
	qv, err := e.Embed(ctx, []string{paraphrase})
	if err != nil {
		t.Fatal(err)
	}
	near, _, err := ix.nearest(ctx, qv[0], 12)
	if err != nil || len(near) < 2 || near[0].sim == near[1].sim {
		t.Fatalf("fixture: want two sections near %q at different similarities, got %v (%v)", paraphrase, near, err)
	}
	rows, err := ix.sections(ctx, []int64{near[0].id, near[1].id})
	if err != nil {
		t.Fatal(err)
	}
	docs := search(t, ix, paraphrase, 3)
	if len(docs) < 2 || docs[0].DocID != rows[near[0].id].docID || docs[1].DocID != rows[near[1].id].docID {
		t.Fatalf("%q: got %v, want %s then %s (similarity order)", paraphrase, sources(docs), rows[near[0].id].docID, rows[near[1].id].docID)
	}
	if docs[0].Score != rrf(1) || docs[1].Score != rrf(2) {
		t.Errorf("%q: scores %v, %v, want %v, %v", paraphrase, docs[0].Score, docs[1].Score, rrf(1), rrf(2))
	}

	const agreed = "mysql connection pool exhausted"
	lex, err := ix.lexical(ctx, queryTerms(agreed), 1)
	if err != nil || len(lex) != 1 {
		t.Fatalf("lexical %v %v", lex, err)
	}
	if qv, err = e.Embed(ctx, []string{agreed}); err != nil {
		t.Fatal(err)
	}
	if near, _, err = ix.nearest(ctx, qv[0], 1); err != nil || len(near) != 1 || near[0].id != lex[0].id {
		t.Fatalf("fixture: want one section first in both rankings of %q: bm25 %v, vectors %v (%v)", agreed, lex[0].docID, near, err)
	}
	if docs := search(t, ix, agreed, 3); len(docs) == 0 || docs[0].DocID != lex[0].docID || docs[0].Score != rrf(1, 1) {
		t.Errorf("%q: got %+v, want %s first with %v", agreed, docs, lex[0].docID, rrf(1, 1))
	}
}

// Two sections of equal fused score, one first by bm25 alone and one first
// by its vector alone, come in doc_id order whichever file holds which.
func TestFusedTiesByDocID(t *testing.T) {
	for _, names := range [][2]string{{"a.md", "b.md"}, {"b.md", "a.md"}} {
		t.Run(names[0]+" lexical", func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "runbooks")
			// "zeta" only here, and no concept word: bm25 finds it, vectors do not.
			writeFile(t, dir, names[0], "# Release notes\n\n## Zeta\n\nThe zeta rollout moved to Tuesday.\n")
			// disk words only: vectors find it, bm25 does not.
			writeFile(t, dir, names[1], "# Host notes\n\n## Capacity\n\nThe disk volume is full.\n")
			s := embedServer(t)
			ix := NewIndex(openDB(t), []string{dir}).WithEmbedder(testEmbedModel, embedder(t, s.URL()))
			mustSync(t, ix)
			docs := search(t, ix, "zeta storage", 3)
			if len(docs) != 2 || docs[0].Score != rrf(1) || docs[1].Score != rrf(1) {
				t.Fatalf("got %+v, want two sections at %v", docs, rrf(1))
			}
			if docs[0].DocID > docs[1].DocID {
				t.Errorf("tie in %v: want doc_id order", sources(docs))
			}
		})
	}
}

// A long section is cut at a paragraph break only when the part before it
// is more than a quarter of the bound; else at a line break or a space, so
// no part is a sliver of a word or two.
func TestSplitBodyNoSlivers(t *testing.T) {
	words := strings.Repeat("replica lag grows ", 40) // 720 bytes
	tests := []struct {
		name, text string
	}{
		{"early paragraph break", "Intro.\n\n" + words},
		{"early line break", "Intro.\n" + words},
		{"paragraph breaks early and late", "Intro.\n\n" + words[:400] + "\n\n" + words},
	}
	const bound = 256
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := splitBody(tt.text, bound)
			for i, p := range parts {
				if len(p) > bound || (i < len(parts)-1 && len(p) <= bound/4) {
					t.Fatalf("part %d of %d is %d bytes (bound %d): %q", i+1, len(parts), len(p), bound, p)
				}
			}
			if got, want := strings.Join(strings.Fields(strings.Join(parts, " ")), " "), strings.Join(strings.Fields(tt.text), " "); got != want {
				t.Errorf("parts do not join to the text")
			}
		})
	}
}

// The metadata weight (front matter and source path, bm25 column meta) is
// pinned between 1 and 2: two front-matter hits beat three body hits and
// lose to four, at equal section and front-matter lengths (weightMeta 1.0
// or 2.0 flips one of the rows).
func TestSearchMetaWeight(t *testing.T) {
	filler := strings.Fields("writes wait on a slow disk under heavy load while the queue grows and the replicas fall behind")
	body := func(k int) string { // k hits of the term, always 16 words
		return strings.Join(append(slices.Repeat([]string{"fsync"}, k), filler[:16-k]...), " ")
	}
	frontMatter := func(k int) string { // k hits of the term, always 4 tags
		return "---\ntags: " + strings.Join(append(slices.Repeat([]string{"fsync"}, k), strings.Fields("storage latency node volume")[:4-k]...), " ") + "\n---\n"
	}
	for _, tt := range []struct {
		name string
		hits int // body hits of the section without the term in its front matter
		want string
	}{
		{"two front-matter hits beat three body hits", 3, "runbooks/a.md"},
		{"four body hits beat two front-matter hits", 4, "runbooks/b.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "runbooks")
			writeFile(t, dir, "a.md", frontMatter(2)+"# Disk\n\n## Write path\n\n"+body(0)+"\n")
			writeFile(t, dir, "b.md", frontMatter(0)+"# Disk\n\n## Write path\n\n"+body(tt.hits)+"\n")
			for i, topic := range []string{"certificates", "dns", "memory"} { // the term stays rare
				writeFile(t, dir, fmt.Sprintf("f%d.md", i), fmt.Sprintf("# About %s\n\n## Checks\n\nLook at the %s of the node.\n", topic, topic))
			}
			ix := NewIndex(openDB(t), []string{dir})
			mustSync(t, ix)
			docs := search(t, ix, "fsync", 3)
			if len(docs) == 0 || !strings.HasPrefix(docs[0].Source, tt.want) {
				t.Errorf("got %v, want %s first", sources(docs), tt.want)
			}
		})
	}
}

// When a result is filled from sections past a file's MaxSectionsPerResult,
// the filled result is ordered with the literal tie-break too: in a
// one-concept query the section holding the query's own word ("超时")
// stays before sections that hold only its synonym ("timeout"), however
// much better their bm25.
func TestSearchLiteralTieBreakAfterFilling(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	strong := strings.Repeat("timeout ", 6)
	writeFile(t, dir, "en.md", "# Timeouts\n\n## Upstream\n\n"+strong+"upstream\n\n## Database\n\n"+strong+"database\n\n## Cache\n\n"+strong+"cache\n")
	writeFile(t, dir, "zh.md", "# 网关\n\n## 排查步骤\n\n请求超时时先看网关日志，再看上游服务的连接池、线程池和慢查询，最后检查网络与负载均衡配置。\n")
	for i, topic := range []string{"certificates", "dns", "memory", "disk", "queues", "replication", "backups", "tls", "cron", "ingress", "kafka", "etcd"} {
		// Both terms stay rare, so bm25 favours the strong English sections.
		writeFile(t, dir, fmt.Sprintf("f%02d.md", i), fmt.Sprintf("# About %s\n\n## Checks\n\nLook at the %s of the node.\n", topic, topic))
	}
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	docs := search(t, ix, "超时", 4)
	if len(docs) != 4 || !strings.HasPrefix(docs[0].Source, "runbooks/zh.md") {
		t.Errorf("got %v, want 4 sections with runbooks/zh.md first", sources(docs))
	}
}
