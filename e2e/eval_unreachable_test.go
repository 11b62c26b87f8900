package e2e

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// eval with no model server reachable stops at once, exit 4, and says the
// server could not be reached: no "fail · 0/1 passed" progress line (a
// server problem is not the model failing a pack) and no run ID from the
// pack's temporary store, which runs show would call unknown.
func TestEvalModelUnreachable(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.run(t, "eval")
	if r.code != 4 {
		t.Fatalf("eval with no model server: exit %d, want 4\n%s", r.code, r)
	}
	if !strings.Contains(r.stderr, "the model server could not be reached") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("eval with no model server does not say it could not be reached, with a hint:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "passed") || strings.Contains(r.stderr, "run r_") {
		t.Errorf("eval with no model server graded a pack or named a run of its temporary store:\n%s", r.stderr)
	}
}
