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

	"github.com/superbiz/superbiz/pkg/model"
)

// ErrExhausted means the model was asked for more rounds than were recorded.
var ErrExhausted = errors.New("replay: no recorded response left")

// Model plays recorded responses in order, one per Chat call.
type Model struct {
	mu        sync.Mutex
	responses []model.Response
	next      int
	requests  []model.Request
}

// New returns a model that answers with responses, in order.
func New(responses []model.Response) *Model {
	return &Model{responses: append([]model.Response(nil), responses...)}
}

// Chat returns the next recorded response, honouring cancellation.
func (m *Model) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, &model.Error{Kind: model.ErrCancelled, Err: err}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	if m.next >= len(m.responses) {
		return model.Response{}, &model.Error{Kind: model.ErrProtocol, Err: fmt.Errorf("%w (%d recorded)", ErrExhausted, len(m.responses))}
	}
	r := m.responses[m.next]
	m.next++
	return r, nil
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
	return len(m.responses) - m.next
}
