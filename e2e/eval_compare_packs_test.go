package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// eval compare of two results over different packs (one file graded two
// packs, the other one of them) says its rates are over different pack
// sets, in text and in -o json (same_packs, graded, common_packs); two
// results over the same packs say nothing of it (issue 40 #16).
func TestEvalCompareDifferentPacks(t *testing.T) {
	srv := newServer(t)
	srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
		return text(`{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"s","missing_info":["m"]}}`)
	})
	e := newEnv(t, srv.URL())
	suite := filepath.Join(e.dir, "packs")
	writeFiles(t, suite, map[string]string{
		"quiet-a/scenario.toml": hostileScenario("quiet-a"), "quiet-a/superbiz.toml": "",
		"quiet-b/scenario.toml": hostileScenario("quiet-b"), "quiet-b/superbiz.toml": "",
	})
	results := func(name string, args ...string) string {
		r := e.run(t, append([]string{"eval", "--suite", suite, "-o", "json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("eval: %s", r)
		}
		path := filepath.Join(e.dir, name)
		if err := os.WriteFile(path, []byte(r.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	both, one, again := results("both.json"), results("one.json", "--filter", "quiet-a"), results("again.json")

	r := e.run(t, "eval", "compare", both, one)
	if r.code != 0 || !strings.Contains(r.stdout, "Note: the files graded different packs (2 in "+both+", 1 in "+one+"; 1 in all of them): pass@1 and the other rates are over different pack sets") {
		t.Errorf("compare over different packs does not say so:\n%s", r)
	}
	r = e.run(t, "eval", "compare", both, one, "-o", "json")
	var c struct {
		SamePacks   bool `json:"same_packs"`
		CommonPacks int  `json:"common_packs"`
		Files       []struct {
			Graded int `json:"graded"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || c.SamePacks || c.CommonPacks != 1 || len(c.Files) != 2 || c.Files[0].Graded != 2 || c.Files[1].Graded != 1 {
		t.Errorf("compare -o json: want same_packs false, common_packs 1, graded 2 and 1: %v %+v\n%s", err, c, r)
	}
	r = e.run(t, "eval", "compare", both, again)
	if r.code != 0 || strings.Contains(r.stdout, "different packs") {
		t.Errorf("compare over the same packs speaks of different ones:\n%s", r)
	}
}
