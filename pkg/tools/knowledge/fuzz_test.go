package knowledge

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
)

func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"# A\nx\n## A\ny\n",
		"---\ntags: [a]\n---\n# 标题\n正文\n",
		"```\n# no\n```\n## yes\nbody",
		"~~~~\n## in fence\n~~~\n## still in\n~~~~\n# out\nz",
		"\ufeff\r\n#\r\n#  \n##x\n####### seven\n   ### indented ###   \n",
		strings.Repeat("超", MaxSectionBytes+7),
	} {
		f.Add("runbook.md", s)
	}
	f.Fuzz(func(t *testing.T, name, content string) {
		page := Split(name, content)
		seen := map[string]bool{}
		for _, s := range page.Sections {
			if seen[s.Anchor] {
				t.Fatalf("duplicate anchor %q", s.Anchor)
			}
			seen[s.Anchor] = true
			if s.Anchor == "" || strings.ContainsAny(s.Anchor, "# \t\n") || len(s.Anchor) > maxAnchorBytes+16 {
				t.Fatalf("bad anchor %q", s.Anchor)
			}
			if s.Body == "" || len(s.Body) > MaxSectionBytes || !utf8.ValidString(s.Body) {
				t.Fatalf("bad body (%d bytes, valid %v)", len(s.Body), utf8.ValidString(s.Body))
			}
			if !utf8.ValidString(s.Title) {
				t.Fatalf("invalid title %q", s.Title)
			}
		}
	})
}

func FuzzBuildQuery(f *testing.F) {
	for _, s := range []string{
		`order-service 支付超时 504`, `"`, `NEAR(a b, 3)`, `a OR b AND NOT c`, `title:x`, `{title}: x`,
		`x*`, `*`, `-x`, `^x`, `+`, `慢`, `a"b`, "\x00", "\uFFFD", "ß ǅ ﬁ", "cafe\u0301", "١٢٣", "\U000F0000",
		"KubePodCrashLooping", `CrashLoop"BackOff`, "ĲsselMeer ǅemal", "aB", "IsDown",
	} {
		f.Add(s)
	}
	ix := NewIndex(openDB(f), []string{copyDir(f, "testdata/runbooks")})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query string) {
		match := BuildQuery(query)
		if match == "" {
			return
		}
		var n int
		for _, m := range []string{match, everyTerm(queryTerms(query))} {
			if err := ix.db.QueryRowContext(context.Background(), `SELECT count(*) FROM kb_fts WHERE kb_fts MATCH ?`, m).Scan(&n); err != nil {
				t.Fatalf("query %q built %q: %v", query, m, err)
			}
		}
		docs, err := ix.Search(context.Background(), query, 3)
		if err != nil {
			t.Fatalf("search %q: %v", query, err)
		}
		for _, d := range docs {
			if len(d.Snippet) > SnippetBytes || !utf8.ValidString(d.Snippet) || d.Score <= 0 {
				t.Fatalf("bad document %+v", d)
			}
		}
	})
}

func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		`{"query":"redis timeout"}`, `{"query":"x","top_k":8}`, `{"query":"x","top_k":1e0}`,
		`{"query":"x","top_k":-0}`, `{"query":"\u0000"}`, `{"query":"x","query":"y"}`, `{"query":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err != nil {
			return
		}
		if in.Query == "" || len(in.Query) > MaxQueryBytes || in.TopK < 1 || in.TopK > MaxTopK {
			t.Fatalf("accepted out-of-range input %+v", in)
		}
		canon, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseInput(canon)
		if err != nil || again != in {
			t.Fatalf("canonical form %s does not round-trip: %+v %v", canon, again, err)
		}
	})
}
