package harness

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

func newRC(t testing.TB, b Budget) *RunContext {
	t.Helper()
	rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s_1", RunID: "r_1", Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Release)
	return rc
}

func TestTerminalTransitionOnce(t *testing.T) {
	rc := newRC(t, DefaultBudget())
	if !rc.Terminate(runrecord.StopSaturated) {
		t.Fatal("first terminal transition refused")
	}
	for _, r := range []runrecord.StopReason{runrecord.StopCompleted, runrecord.StopCancelled, runrecord.StopInternal} {
		if rc.Terminate(r) {
			t.Fatalf("second terminal transition %s accepted", r)
		}
	}
	rc.Cancel()
	if lc, r := rc.State(); lc != runrecord.Completed || r != runrecord.StopSaturated {
		t.Fatalf("state = %s %s", lc, r)
	}
	if _, err := rc.BeforeModelCall(0); ReasonOf(err) != runrecord.StopSaturated {
		t.Fatalf("model call after the end: %v", err)
	}
}

func TestNewRunContextValidates(t *testing.T) {
	bad := DefaultBudget()
	bad.MaxModelCalls = 0
	for name, o := range map[string]RunOptions{
		"no ids":     {Budget: DefaultBudget()},
		"bad budget": {SessionID: "s", RunID: "r", Budget: bad},
	} {
		if _, err := NewRunContext(context.Background(), o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestBudgets(t *testing.T) {
	b := DefaultBudget()
	b.MaxModelCalls, b.MaxToolCalls, b.MaxTokens, b.MaxRunBytes = 3, 1, 100, 10
	rc := newRC(t, b)
	// One call is reserved for a later purpose.
	for i := 0; i < 2; i++ {
		if _, err := rc.BeforeModelCall(1); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := rc.BeforeModelCall(1); ReasonOf(err) != runrecord.StopModelBudget {
		t.Fatalf("reserved call was taken: %v", err)
	}
	if rc.ModelCallsLeft(0) != 1 {
		t.Fatalf("left = %d", rc.ModelCallsLeft(0))
	}
	rc.RecordTokens(60, 40)
	if _, err := rc.BeforeModelCall(0); ReasonOf(err) != runrecord.StopTokenBudget {
		t.Fatalf("token budget: %v", err)
	}
	if err := rc.reserveToolCall(); err != nil {
		t.Fatal(err)
	}
	if err := rc.reserveToolCall(); ReasonOf(err) != runrecord.StopToolBudget {
		t.Fatalf("tool budget: %v", err)
	}
	if err := rc.ReserveBytes(10); err != nil {
		t.Fatal(err)
	}
	if err := rc.ReserveBytes(1); ReasonOf(err) != runrecord.StopByteBudget || rc.Usage().Bytes != 10 {
		t.Fatalf("byte budget: %v, bytes %d", err, rc.Usage().Bytes)
	}
}

func TestDeadline(t *testing.T) {
	b := DefaultBudget()
	b.Deadline = 20 * time.Millisecond
	rc := newRC(t, b)
	<-rc.Context().Done()
	if _, err := rc.BeforeModelCall(0); ReasonOf(err) != runrecord.StopDeadline {
		t.Fatalf("after the deadline: %v", err)
	}
}

// Concurrent readers (the UI) and writers never race (run with -race).
func TestConcurrentReads(t *testing.T) {
	rc := newRC(t, DefaultBudget())
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				_ = rc.Usage()
				_, _ = rc.State()
				_ = rc.TimeLeft()
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				rc.RecordTokens(1, 1)
				_ = rc.ReserveBytes(1)
			}
		}()
	}
	wg.Wait()
	if u := rc.Usage(); u.PromptTokens != 800 || u.Bytes != 800 {
		t.Fatalf("usage = %+v", u)
	}
}

// TestSnapshotBounds: however many checks a run made and however long
// their summaries, the snapshot lists MaxSnapshotChecks of them, each
// summary within MaxCheckSummaryBytes; the counts still cover all.
func TestSnapshotBounds(t *testing.T) {
	var invs []Invocation
	for range MaxSnapshotChecks + 8 {
		invs = append(invs, Invocation{Kind: runrecord.KindEvidence, Status: StatusCompleted, Tool: "query_logs",
			EvidenceStatus: tools.EvidenceFound, Summary: strings.Repeat("超时 ", 100)})
	}
	s := SnapshotOf(invs, "")
	if len(s.Checks) != MaxSnapshotChecks || s.EvidenceFound != len(invs) {
		t.Fatalf("checks = %d, evidence found = %d; want %d and %d", len(s.Checks), s.EvidenceFound, MaxSnapshotChecks, len(invs))
	}
	for _, c := range s.Checks {
		if len(c.Summary) > MaxCheckSummaryBytes || !strings.HasSuffix(c.Summary, "…") {
			t.Fatalf("summary of %d bytes, want a marked cut within %d: %q", len(c.Summary), MaxCheckSummaryBytes, c.Summary)
		}
	}
}
