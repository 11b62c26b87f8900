package knowledge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoRunbooks is where pkg/demo keeps the demo workspace's runbooks; the
// quality test evaluates them too when they and their query set exist.
var demoRunbooks = filepath.Join("..", "..", "demo", "workspace", "runbooks")

// qualityCase is one query of a quality set and the documents that answer it:
// a doc_id, or a source path (no '#') that accepts any section of that file.
type qualityCase struct {
	Query  string   `json:"query"`
	Expect []string `json:"expect"`
}

// qualitySets pairs a runbook root with its query set.
var qualitySets = []struct {
	name, root, queries string
}{
	{"testdata", filepath.Join("testdata", "runbooks"), filepath.Join("testdata", "queries.json")},
	{"demo", demoRunbooks, filepath.Join("testdata", "queries_demo.json")},
}

func TestQuality(t *testing.T) {
	ran := 0
	for _, set := range qualitySets {
		if _, err := os.Stat(set.root); err != nil {
			t.Logf("%s: no runbooks at %s, skipped", set.name, set.root)
			continue
		}
		data, err := os.ReadFile(set.queries)
		if err != nil {
			t.Logf("%s: no query set %s, skipped", set.name, set.queries)
			continue
		}
		ran++
		t.Run(set.name, func(t *testing.T) {
			var cases []qualityCase
			if err := json.Unmarshal(data, &cases); err != nil {
				t.Fatalf("parse %s: %v", set.queries, err)
			}
			if len(cases) < 20 {
				t.Fatalf("%s has %d queries, want at least 20", set.queries, len(cases))
			}
			var zh, en int
			for _, c := range cases {
				if strings.IndexFunc(c.Query, isCJK) >= 0 {
					zh++
				} else {
					en++
				}
			}
			if zh < len(cases)*2/5 || en < len(cases)*2/5 {
				t.Fatalf("query set is unbalanced: %d Chinese, %d English", zh, en)
			}
			ix := NewIndex(openDB(t), []string{set.root}) // read only
			if _, err := ix.Sync(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			var hit1, hit3, mrr float64
			for _, c := range cases {
				docs, err := ix.Search(context.Background(), c.Query, 3)
				if err != nil {
					t.Fatalf("%q: %v", c.Query, err)
				}
				rank := 0
				for i, d := range docs {
					if expected(c.Expect, d.DocID) {
						rank = i + 1
						break
					}
				}
				if rank == 0 {
					got := make([]string, len(docs))
					for i, d := range docs {
						got[i] = d.DocID
					}
					t.Logf("miss %q: got %v, want %v", c.Query, got, c.Expect)
					continue
				}
				if rank == 1 {
					hit1++
				}
				hit3++
				mrr += 1 / float64(rank)
			}
			n := float64(len(cases))
			t.Logf("%s (%d queries: %d zh, %d en): hit@1 %.3f  hit@3 %.3f  MRR@3 %.3f", set.name, len(cases), zh, en, hit1/n, hit3/n, mrr/n)
			if hit3/n < 0.9 {
				t.Errorf("hit@3 %.3f below 0.9", hit3/n)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no quality set evaluated")
	}
}

// expected reports whether docID answers a case: an exact doc_id, or any
// section of an expected source file.
func expected(expect []string, docID string) bool {
	for _, e := range expect {
		if e == docID || (!strings.Contains(e, "#") && strings.HasPrefix(docID, e+"#")) {
			return true
		}
	}
	return false
}
