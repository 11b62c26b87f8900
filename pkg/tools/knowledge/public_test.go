package knowledge

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// publicEnv names a directory of public runbooks (other projects' text, kept
// outside the repository) holding queries.json: qualityCases whose expect
// entries are path suffixes of the answering files ("KubePodNotReady.md",
// "troubleshooting/pod.md"), so a topic several corpora cover accepts each.
const publicEnv = "SUPERBIZ_PUBLIC_RUNBOOKS"

// TestPublicRunbooks reports hit@1, hit@3 and MRR@3 by query kind on a public
// corpus the project did not write; it sets no floor (the corpus is not in
// the repository) and is skipped unless SUPERBIZ_PUBLIC_RUNBOOKS is set.
// Run: SUPERBIZ_PUBLIC_RUNBOOKS=/work/public-runbooks go test -run TestPublicRunbooks -v
func TestPublicRunbooks(t *testing.T) {
	dir := os.Getenv(publicEnv)
	if dir == "" {
		t.Skip(publicEnv + " is not set: no public runbook corpus to measure")
	}
	data, err := os.ReadFile(filepath.Join(dir, "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []qualityCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("parse queries.json: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	for _, e := range entries {
		if e.IsDir() {
			roots = append(roots, filepath.Join(dir, e.Name()))
		}
	}
	// Every expected suffix must name a file, or a typo would read as a miss.
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, filepath.ToSlash(p))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		for _, e := range c.Expect {
			found := false
			for _, f := range files {
				if strings.HasSuffix(f, "/"+e) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("%q expects %s, which is no file under %s", c.Query, e, dir)
			}
		}
	}
	ix := NewIndex(openDB(t), roots)
	st, err := ix.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("public corpus: %d files, %d sections, %d queries", st.Indexed, st.Total, len(cases))
	figures := evaluate(t, ix, cases, func(expect []string, docID string) bool {
		source, _, _ := strings.Cut(docID, "#")
		for _, e := range expect {
			if strings.HasSuffix("/"+source, "/"+e) {
				return true
			}
		}
		return false
	})
	for _, k := range kindsOf(figures) {
		hit1, hit3, mrr3 := figures[k].rates()
		t.Logf("public %-14s %2d queries: hit@1 %.3f  hit@3 %.3f  MRR@3 %.3f", k, figures[k].n, hit1, hit3, mrr3)
	}
}
