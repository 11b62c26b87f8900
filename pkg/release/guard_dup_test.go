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

// A Tool Call ID that names two steps of the run (a server reusing IDs)
// cannot be cited: which step the claim rests on is ambiguous, even when
// both are completed EVIDENCE_FOUND checks. A unique ID beside it passes.
func TestEvidenceGuardRefusesAnIDNamingTwoSteps(t *testing.T) {
	found := func(id string) harness.Invocation {
		return harness.Invocation{ToolCallID: id, Tool: "query_logs", Kind: runrecord.KindEvidence, Status: harness.StatusCompleted, EvidenceStatus: tools.EvidenceFound}
	}
	invs := []harness.Invocation{found("call_dup"), found("call_ok"), found("call_dup")}
	cite := func(ids ...string) *agent.Draft {
		return &agent.Draft{
			Conclusion: &agent.Conclusion{Summary: "s", RootCause: "r", Confidence: "HIGH"},
			Analysis:   []agent.AnalysisItem{{Type: agent.Finding, Claim: "c", ToolCallIDs: ids}},
		}
	}
	if g := EvidenceGuard(cite("call_ok"), invs); !g.Passed() {
		t.Fatalf("a unique ID was refused: %+v", g)
	}
	g := EvidenceGuard(cite("call_ok", "call_dup"), invs)
	if reasons := reasonsOf(t, g); g.Passed() || len(reasons) != 1 || !strings.Contains(reasons[0], `"call_dup", which names 2 tool steps`) {
		t.Fatalf("review %+v, want one rejection naming the ambiguous ID", g)
	}
	reliability.Record(t, reliability.SectionMutation, "EvidenceGuard: one Tool Call ID naming two steps", map[string]any{"test": t.Name()})
}

// reasonsOf reads a review's reasons, failing the test when they do not decode.
func reasonsOf(t *testing.T, g GuardReview) []string {
	t.Helper()
	reasons, err := g.DecodeReasons()
	if err != nil {
		t.Fatal(err)
	}
	return reasons
}
