package tui

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"

	tea "charm.land/bubbletea/v2"

	"github.com/superbiz/superbiz/pkg/harness"
)

// gateSender blocks every Send until the gate opens, like a program whose
// terminal is stuck, then records what it got.
type gateSender struct {
	gate chan struct{}
	mu   sync.Mutex
	got  []tea.Msg
}

func (g *gateSender) Send(msg tea.Msg) {
	<-g.gate
	g.mu.Lock()
	g.got = append(g.got, msg)
	g.mu.Unlock()
}

func (g *gateSender) msgs() []tea.Msg {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]tea.Msg(nil), g.got...)
}

// TestEventSinkNeverBlocks emits a whole run's worth of events (and a
// flood of budget frames) while the program reads nothing: Emit returns
// every time (a blocking Emit deadlocks this test), every state-changing
// event arrives in order once the program reads, and budget frames are
// coalesced to the latest.
func TestEventSinkNeverBlocks(t *testing.T) {
	testenv.SkipShort(t, "floods the sink with 100,000 events")
	g := &gateSender{gate: make(chan struct{})}
	s := NewEventSink(g)
	const rounds = 2000
	for i := 1; i <= rounds; i++ {
		s.Emit(harness.ModelRoundStarted{Meta: meta(), Seq: i})
		for j := 0; j < 50; j++ {
			s.Emit(budgetEv(usage(i, 0, j, 0, 0), time.Minute))
		}
	}
	s.Post(ReportMsg{ExitCode: 3})
	close(g.gate)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := g.msgs()
	seq, budgets := 0, 0
	var last harness.BudgetChanged
	for _, m := range got {
		switch m := m.(type) {
		case EventMsg:
			switch e := m.Event.(type) {
			case harness.ModelRoundStarted:
				seq++
				if e.Seq != seq {
					t.Fatalf("round %d arrived as number %d: state events out of order", e.Seq, seq)
				}
			case harness.BudgetChanged:
				budgets++
				last = e
			}
		case ReportMsg:
			if seq != rounds {
				t.Fatalf("report arrived after %d of %d rounds", seq, rounds)
			}
		}
	}
	if seq != rounds {
		t.Fatalf("delivered %d of %d state-changing events", seq, rounds)
	}
	if _, ok := got[len(got)-1].(ReportMsg); !ok {
		t.Fatalf("last message %T, want the report posted last", got[len(got)-1])
	}
	if last.Usage.ModelCalls != rounds || last.Usage.PromptTokens != 49 {
		t.Fatalf("last budget frame %+v, want the newest", last.Usage)
	}
	coalesced, late := s.Stats()
	if budgets+coalesced != rounds*50 || coalesced == 0 || late != 0 {
		t.Fatalf("budgets delivered %d + coalesced %d != %d emitted (late %d)", budgets, coalesced, rounds*50, late)
	}
}

// TestEventSinkConcurrentFlood: several goroutines emit at once while the
// program reads; each one's state-changing events arrive complete and in
// its order.
func TestEventSinkConcurrentFlood(t *testing.T) {
	g := &gateSender{gate: make(chan struct{})}
	close(g.gate)
	s := NewEventSink(g)
	const writers, each = 8, 5000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				s.Emit(harness.ToolCallStarted{Meta: meta(), ToolCallID: fmt.Sprintf("w%d", w), Tool: fmt.Sprint(i)})
				s.Emit(budgetEv(usage(0, i, 0, 0, 0), time.Minute))
			}
		}()
	}
	wg.Wait()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for _, m := range g.msgs() {
		if e, ok := m.(EventMsg).Event.(harness.ToolCallStarted); ok {
			if e.Tool != fmt.Sprint(next[e.ToolCallID]) {
				t.Fatalf("writer %s: got call %s, want %d", e.ToolCallID, e.Tool, next[e.ToolCallID])
			}
			next[e.ToolCallID]++
		}
	}
	for w := range writers {
		if n := next[fmt.Sprintf("w%d", w)]; n != each {
			t.Fatalf("writer %d: %d of %d events delivered", w, n, each)
		}
	}
}

// TestEventSinkAfterClose: messages after Close are counted, not sent, and
// Close gives up when its context ends while the program is stuck.
func TestEventSinkAfterClose(t *testing.T) {
	g := &gateSender{gate: make(chan struct{})}
	s := NewEventSink(g)
	s.Emit(phaseStart[0])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Close(ctx); err == nil {
		t.Fatal("Close must report that the stuck program did not take the queue")
	}
	s.Emit(phaseStart[1])
	s.Post(ReportMsg{})
	if _, late := s.Stats(); late != 2 {
		t.Fatalf("late = %d, want 2", late)
	}
	close(g.gate)
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(g.msgs()); n != 1 {
		t.Fatalf("delivered %d messages, want only the one before Close", n)
	}
}

// BenchmarkEventSinkEmit measures the engine-side cost of one event while
// the program is reading.
func BenchmarkEventSinkEmit(b *testing.B) {
	g := &gateSender{gate: make(chan struct{})}
	close(g.gate)
	s := NewEventSink(g)
	ev := budgetEv(usage(1, 1, 1, 1, 1), time.Minute)
	st := harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_1", Tool: "query_logs"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			s.Emit(ev)
		} else {
			s.Emit(st)
		}
	}
	b.StopTimer()
	if err := s.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}
