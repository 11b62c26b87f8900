package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// --demo keeps its runbooks in an index of its own: indexing the demo
// neither adds them to the person's index nor removes the person's
// runbooks from it (docs/SPEC.md#demo).
func TestDemoKeepsOutOfTheUsersIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["XDG_CACHE_HOME"] = t.TempDir()
	rb := filepath.Join(e.dir, "runbooks")
	writeFiles(t, rb, map[string]string{"disk.md": "# Disk full\n\n## Checks\n\nLook at the disk.\n"})
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[knowledge]\npaths = ["+strconv.Quote(rb)+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type counts struct {
		Files   int `json:"files"`
		Indexed int `json:"indexed"`
		Removed int `json:"removed"`
	}
	index := func(args ...string) counts {
		t.Helper()
		r := e.run(t, append(args, "kb", "index", "-o", "json")...)
		var c counts
		if err := json.Unmarshal([]byte(r.stdout), &c); r.code != 0 || err != nil {
			t.Fatalf("kb index (%v): %s", err, r)
		}
		return c
	}
	if c := index(); c.Files != 1 || c.Indexed != 1 {
		t.Fatalf("own index: %+v, want the 1 runbook", c)
	}
	if c := index("--demo"); c.Files < 10 || c.Removed != 0 {
		t.Fatalf("demo index: %+v, want the demo's runbooks and nothing removed", c)
	}
	if c := index(); c.Files != 1 || c.Indexed != 0 || c.Removed != 0 {
		t.Errorf("own index after --demo kb index: %+v, want the 1 runbook unchanged, nothing removed", c)
	}
	if _, err := os.Stat(filepath.Join(e.vars["XDG_CACHE_HOME"], "superbiz", "demo-index.db")); err != nil {
		t.Errorf("the demo's own index: %v", err)
	}
}
