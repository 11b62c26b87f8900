package release

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// GuardReview is one guard's verdict with its reasons, the audit record
// declared in pkg/runrecord. It is stored for the audit only: no reason
// ever reaches the answer or the PublishedResult.
type GuardReview = runrecord.GuardReview

// maxReasons bounds the reasons one review keeps.
const maxReasons = 10

// EvidenceGuard is the deterministic check of docs/SPEC.md#release-guards: every cited
// Tool Call ID names one completed evidence check of this run (invs);
// a FINDING cites only EVIDENCE_FOUND checks, a NEGATIVE_OBSERVATION only
// NO_EVIDENCE ones whose window held data (not coverage "none" or "partial"); a non-null conclusion needs at least one FINDING. It
// lists every violation (bounded), not just the first.
func EvidenceGuard(d *agent.Draft, invs []harness.Invocation) GuardReview {
	if d == nil {
		return runrecord.NewGuardReview(runrecord.GuardEvidence, runrecord.VerdictReject, []string{"no draft"})
	}
	verdict, reasons := runrecord.VerdictPass, []string{}
	count := map[string]int{}
	byID := map[string]harness.Invocation{}
	for _, inv := range invs {
		count[inv.ToolCallID]++
		byID[inv.ToolCallID] = inv
	}
	reject := func(format string, args ...any) {
		verdict = runrecord.VerdictReject
		if len(reasons) < maxReasons {
			reasons = append(reasons, safe(fmt.Sprintf(format, args...), maxListItem))
		}
	}
	findings := 0
	for i, it := range d.Analysis {
		if it.Type == agent.Finding {
			findings++
		}
		if len(it.ToolCallIDs) == 0 {
			reject("analysis[%d] cites no tool call", i)
		}
		for _, id := range it.ToolCallIDs {
			inv, ok := byID[id]
			switch {
			case !ok:
				reject("analysis[%d] cites %q, which is no tool call of this run", i, id)
			case count[id] > 1:
				reject("analysis[%d] cites %q, which names %d tool steps of this run", i, id, count[id])
			case !inv.Ready():
				reject("analysis[%d] cites %q, a %s step with status %s, not a completed evidence check", i, id, inv.Kind, inv.Status)
			case it.Type == agent.Finding && inv.EvidenceStatus != tools.EvidenceFound:
				reject("analysis[%d] is a FINDING citing %q, whose evidence status is %s, not EVIDENCE_FOUND", i, id, inv.EvidenceStatus)
			case it.Type == agent.NegativeObservation && inv.EvidenceStatus != tools.NoEvidence:
				reject("analysis[%d] is a NEGATIVE_OBSERVATION citing %q, whose evidence status is %s, not NO_EVIDENCE", i, id, inv.EvidenceStatus)
			case it.Type == agent.NegativeObservation && inv.EmptyWindow != "":
				reject("analysis[%d] is a NEGATIVE_OBSERVATION citing %q, whose window held no data it could judge (coverage none or partial: %s): missing data is not a negative", i, id, inv.EmptyWindow)
			case it.Type != agent.Finding && it.Type != agent.NegativeObservation:
				reject("analysis[%d] has unknown type %q", i, it.Type)
			}
		}
	}
	if d.Conclusion != nil && findings == 0 {
		reject("a conclusion is given without any FINDING")
	}
	return runrecord.NewGuardReview(runrecord.GuardEvidence, verdict, reasons)
}
