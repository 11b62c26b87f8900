package release

import (
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// benchRun is a draft of 20 items citing 8 IDs each over 32 invocations.
func benchRun() (*agent.Draft, []harness.Invocation) {
	var invs []harness.Invocation
	for i := range 32 {
		invs = append(invs, harness.Invocation{ToolCallID: fmt.Sprintf("call_%08d", i), Tool: "query_logs", Kind: runrecord.KindEvidence,
			Status: harness.StatusCompleted, EvidenceStatus: tools.EvidenceFound, Summary: "service=order-service level=ERROR since=1h",
			Observation: []byte(`{"tool_call_id":"x","tool":"query_logs","evidence_status":"EVIDENCE_FOUND","result":{"matched":1}}`)})
	}
	d := &agent.Draft{Conclusion: &agent.Conclusion{Summary: "s", RootCause: "r", Confidence: "HIGH"}}
	for i := range 20 {
		it := agent.AnalysisItem{Type: agent.Finding, Claim: strings.Repeat("claim ", 100), Scope: "logs"}
		for j := range 8 {
			it.ToolCallIDs = append(it.ToolCallIDs, invs[(i+j)%32].ToolCallID)
		}
		d.Analysis = append(d.Analysis, it)
	}
	d.Limitations.MissingInfo = []string{strings.Repeat("m", 300)}
	return d, invs
}

func BenchmarkEvidenceGuard(b *testing.B) {
	d, invs := benchRun()
	b.ReportAllocs()
	for b.Loop() {
		if r := EvidenceGuard(d, invs); !r.Passed() {
			b.Fatal(string(r.Reasons))
		}
	}
}

func BenchmarkBuildPublished(b *testing.B) {
	d, invs := benchRun()
	byID := readyByID(invs, 8192)
	sc := newScrubber(invs)
	b.ReportAllocs()
	for b.Loop() {
		buildPublished(testQuery, d, byID, sc)
	}
}

func BenchmarkFallbackAnswer(b *testing.B) {
	d, invs := benchRun()
	s := progressOf(agent.Result{Invocations: invs})
	sc := newScrubber(invs)
	b.ReportAllocs()
	for b.Loop() {
		enTexts().fallbackAnswer(runrecord.StopToolBudget, s, &d.Limitations, sc, "r_bench")
	}
}

func BenchmarkPreviousTurnHuge(b *testing.B) {
	p := hugePublished()
	b.ReportAllocs()
	for b.Loop() {
		if p.PreviousTurn(agent.DefaultLimits().PreviousTurn) == nil {
			b.Fatal("no previous turn")
		}
	}
}
