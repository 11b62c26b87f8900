package tui

import (
	"context"
	"fmt"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/superbiz/superbiz/pkg/harness"
)

// EventMsg carries one run event into a bubbletea program, so the models can
// tell engine events from their own messages.
type EventMsg struct{ Event harness.Event }

// Sender is the part of *tea.Program the sink needs; tests pass their own.
type Sender interface{ Send(msg tea.Msg) }

// EventSink bridges the engine to a bubbletea program without ever blocking
// the engine: Emit only appends to an unbounded queue that one goroutine
// delivers with Send. State-changing events are never dropped; a
// BudgetChanged still waiting when a newer one arrives is replaced by it, so
// a slow terminal loses intermediate frames only.
type EventSink struct {
	to   Sender
	wake chan struct{}
	done chan struct{}

	mu        sync.Mutex
	queue     []tea.Msg // nil entries are superseded budget frames
	budgetAt  int       // index of the pending BudgetChanged in queue, or -1
	closed    bool
	coalesced int
	late      int
}

// NewEventSink starts delivering to to (normally a *tea.Program); call Close
// when the run is over.
func NewEventSink(to Sender) *EventSink {
	s := &EventSink{to: to, wake: make(chan struct{}, 1), done: make(chan struct{}), budgetAt: -1}
	go s.deliver()
	return s
}

// Emit implements harness.Sink; it never blocks on the terminal.
func (s *EventSink) Emit(ev harness.Event) {
	if ev == nil {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.late++
		s.mu.Unlock()
		return
	}
	if _, ok := ev.(harness.BudgetChanged); ok {
		if s.budgetAt >= 0 {
			s.queue[s.budgetAt] = nil
			s.coalesced++
		}
		s.budgetAt = len(s.queue)
	}
	s.queue = append(s.queue, EventMsg{Event: ev})
	s.mu.Unlock()
	s.signal()
}

// Post queues an application message (ReportMsg, TurnStartedMsg,
// TurnFinishedMsg) behind the events already emitted, so a report can never
// overtake the run's last events.
func (s *EventSink) Post(msg tea.Msg) {
	s.mu.Lock()
	if s.closed {
		s.late++
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, msg)
	s.mu.Unlock()
	s.signal()
}

// Close stops accepting messages and waits until everything queued has been
// handed to the program (a finished tea.Program accepts at once), or ctx ends.
func (s *EventSink) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close event sink: %w", context.Cause(ctx))
	}
}

// Stats reports how many budget frames were superseded before delivery and
// how many messages arrived after Close (and were therefore not delivered).
func (s *EventSink) Stats() (coalesced, late int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.coalesced, s.late
}

func (s *EventSink) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// deliver is the only goroutine that calls Send; it may block there as long
// as the program is busy, while Emit keeps queueing.
func (s *EventSink) deliver() {
	defer close(s.done)
	for range s.wake {
		for {
			s.mu.Lock()
			batch := s.queue
			s.queue, s.budgetAt = nil, -1
			closed := s.closed
			s.mu.Unlock()
			if len(batch) == 0 {
				if closed {
					return
				}
				break
			}
			for _, m := range batch {
				if m != nil {
					s.to.Send(m)
				}
			}
		}
	}
}
