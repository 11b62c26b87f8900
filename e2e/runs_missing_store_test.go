package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// Reading runs never creates a store: `runs --db typo.db` says the file
// does not exist (it used to create an empty store and say "No runs yet"),
// and the default store not made yet reads as no runs, still without a file.
func TestRunsNeverCreateAStore(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	typo := filepath.Join(e.dir, "typo.db")
	for _, args := range [][]string{{"runs", "--db", typo}, {"runs", "show", "last", "--db", typo}} {
		r := e.run(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, typo+" (from --db) does not exist") {
			t.Errorf("%q: exit %d, want 2 saying the store does not exist:\n%s", args, r.code, r)
		}
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Errorf("reading runs created %s (stat: %v)", typo, err)
	}
	e.vars["SUPERBIZ_DB"] = filepath.Join(e.dir, "elsewhere.db")
	if r := e.run(t, "runs"); r.code != 2 || !strings.Contains(r.stderr, "(from $SUPERBIZ_DB) does not exist") {
		t.Errorf("a store named by $SUPERBIZ_DB that is missing: exit %d, want 2 naming the variable:\n%s", r.code, r)
	}
	delete(e.vars, "SUPERBIZ_DB") // the default store, under XDG_DATA_HOME
	r := e.run(t, "runs")
	if r.code != 0 || !strings.Contains(r.stdout, "No runs yet") {
		t.Errorf("the default store not made yet: exit %d, want 0 and No runs yet:\n%s", r.code, r)
	}
	if r := e.run(t, "runs", "--session", "s_nope"); r.code != 2 || !strings.Contains(r.stderr, `unknown session "s_nope"`) {
		t.Errorf("runs --session with no store yet: exit %d, want 2 naming the unknown session:\n%s", r.code, r)
	}
	if r := e.run(t, "runs", "-o", "json"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("runs -o json with no store yet: exit %d, want 0 and []:\n%s", r.code, r)
	}
	if _, err := os.Stat(filepath.Join(e.vars["XDG_DATA_HOME"], "superbiz", "superbiz.db")); !os.IsNotExist(err) {
		t.Errorf("runs created the default store (stat: %v)", err)
	}
}
