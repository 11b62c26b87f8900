// Package replay is a ChatModel that answers from a recorded transcript: the
// responses of a stored run (for `superbiz replay`) or a hand-written script
// (the demo). It never invents an answer: once the transcript is spent, or
// when a request's purpose does not match the recording, it fails.
package replay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
)

// ErrExhausted means the model was asked for more rounds than were recorded.
var ErrExhausted = errors.New("replay: no recorded response left")

// Step is one recorded round: the response, or the failure it ended in.
type Step struct {
	Response model.Response
	// Err, when set, is returned instead of Response (the round failed).
	Err model.ErrorKind
}

// Model plays recorded steps in order, one per Chat call.
type Model struct {
	pace     time.Duration // waited before each answer; 0 answers at once
	mu       sync.Mutex
	steps    []Step
	next     int
	requests []model.Request
}

// New returns a model that answers with responses, in order.
func New(responses []model.Response) *Model {
	steps := make([]Step, len(responses))
	for i, r := range responses {
		steps[i] = Step{Response: r}
	}
	return &Model{steps: steps}
}

// NewPaced is New answering each call only after pace has passed, so a
// scripted run on a terminal lasts long enough to be watched (the demo).
func NewPaced(responses []model.Response, pace time.Duration) *Model {
	m := New(responses)
	m.pace = pace
	return m
}

// NewSteps returns a model that plays recorded steps, failures included.
func NewSteps(steps []Step) *Model {
	return &Model{steps: append([]Step(nil), steps...)}
}

// Chat returns the next recorded response, honouring cancellation.
func (m *Model) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, &model.Error{Kind: model.ErrCancelled, Err: err}
	}
	if m.pace > 0 {
		t := time.NewTimer(m.pace)
		select {
		case <-ctx.Done():
			t.Stop()
			return model.Response{}, &model.Error{Kind: model.ErrCancelled, Err: ctx.Err()}
		case <-t.C:
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	if m.next >= len(m.steps) {
		return model.Response{}, &model.Error{Kind: model.ErrProtocol, Err: fmt.Errorf("%w (%d recorded)", ErrExhausted, len(m.steps))}
	}
	st := m.steps[m.next]
	m.next++
	if st.Err != "" {
		return model.Response{}, &model.Error{Kind: st.Err, Err: errors.New("replay: recorded failure")}
	}
	return st.Response, nil
}

// Requests returns what the model was asked, for comparisons.
func (m *Model) Requests() []model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]model.Request(nil), m.requests...)
}

// Remaining is how many recorded responses were not played.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.steps) - m.next
}
