package release

import (
	"testing"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// TestProgressOfBoundsAgentSnapshot: an agent snapshot longer than the
// harness's own bound is cut to harness.MaxSnapshotChecks, the one bound.
func TestProgressOfBoundsAgentSnapshot(t *testing.T) {
	snap := harness.ProgressSnapshot{Checks: make([]runrecord.Check, harness.MaxSnapshotChecks+5)}
	if got := progressOf(agent.Result{Snapshot: &snap}); len(got.Checks) != harness.MaxSnapshotChecks {
		t.Fatalf("checks = %d, want %d", len(got.Checks), harness.MaxSnapshotChecks)
	}
}
