package release

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// A NEGATIVE_OBSERVATION may cite a NO_EVIDENCE check only when its window
// held data: one citing an empty window is rejected with its own reason;
// the same negative over a window with data passes.
func TestEvidenceGuardEmptyWindow(t *testing.T) {
	check := func(id, empty string) harness.Invocation {
		return harness.Invocation{ToolCallID: id, Tool: "query_logs", Kind: runrecord.KindEvidence, Status: harness.StatusCompleted,
			EvidenceStatus: tools.NoEvidence, EmptyWindow: empty}
	}
	found := harness.Invocation{ToolCallID: "call_found001", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: harness.StatusCompleted, EvidenceStatus: tools.EvidenceFound}
	invs := []harness.Invocation{found, check("call_empty001", "log source app covers 2025-12-10T06:55 – 11:04; nothing in the asked window"), check("call_data0001", "")}
	draft := func(negative string) *agent.Draft {
		d, err := agent.ParseDraft(draftJSON(true,
			item{agent.Finding, "pool full", "", []string{"call_found001"}},
			item{agent.NegativeObservation, "no sshd failures", "sshd logs 14:00-15:00", []string{negative}}), agent.DefaultLimits().Draft)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	r := EvidenceGuard(draft("call_empty001"), invs)
	if reasons := reasonsOf(t, r); r.Passed() || len(reasons) != 1 || !strings.Contains(reasons[0], "window held no data") || !strings.Contains(reasons[0], "covers 2025-12-10T06:55") {
		t.Errorf("negative over an empty window: %s %s, want REJECT naming the empty window", r.Verdict, r.Reasons)
	}
	passed := EvidenceGuard(draft("call_data0001"), invs)
	if !passed.Passed() {
		t.Errorf("negative over a window with data: %s %s, want PASS", passed.Verdict, passed.Reasons)
	}
	reliability.Record(t, reliability.SectionEvidence, "EvidenceGuard: NEGATIVE_OBSERVATION over an empty window and over data", map[string]any{
		"empty_window_verdict": r.Verdict, "with_data_verdict": passed.Verdict,
	})
}
