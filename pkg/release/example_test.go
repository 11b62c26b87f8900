package release_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The EvidenceGuard reads the draft's citations against the run's tool
// calls: a finding may only cite a completed call that found evidence.
func ExampleEvidenceGuard() {
	invs := []harness.Invocation{
		{ToolCallID: "call_1", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: harness.StatusCompleted, EvidenceStatus: tools.EvidenceFound},
		{ToolCallID: "call_2", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: harness.StatusCompleted, EvidenceStatus: tools.NoEvidence},
	}
	draft := func(cite string) *agent.Draft {
		return &agent.Draft{
			Conclusion: &agent.Conclusion{Summary: "The pool is exhausted.", RootCause: "A slow query holds connections.", Confidence: "MEDIUM"},
			Analysis:   []agent.AnalysisItem{{Type: agent.Finding, Claim: "Pool timeouts since 14:00.", Scope: "payment logs", ToolCallIDs: []string{cite}}},
		}
	}
	for _, cite := range []string{"call_1", "call_2", "call_9"} {
		r := release.EvidenceGuard(draft(cite), invs)
		fmt.Println(cite, r.Verdict, string(r.Reasons))
	}
	// Output:
	// call_1 PASS []
	// call_2 REJECT ["analysis[0] is a FINDING citing \"call_2\", whose evidence status is NO_EVIDENCE, not EVIDENCE_FOUND"]
	// call_9 REJECT ["analysis[0] cites \"call_9\", which is no tool call of this run"]
}
