package replay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
)

func TestReplayOrderAndExhaustion(t *testing.T) {
	m := New([]model.Response{{Message: model.Message{Content: "a"}}, {Message: model.Message{Content: "b"}}})
	for _, want := range []string{"a", "b"} {
		r, err := m.Chat(context.Background(), model.Request{})
		if err != nil || r.Message.Content != want {
			t.Fatalf("got %q, %v; want %q", r.Message.Content, err, want)
		}
	}
	_, err := m.Chat(context.Background(), model.Request{})
	if !errors.Is(err, ErrExhausted) || model.KindOf(err) != model.ErrProtocol {
		t.Fatalf("err = %v", err)
	}
	if len(m.Requests()) != 3 || m.Remaining() != 0 {
		t.Fatalf("requests %d remaining %d", len(m.Requests()), m.Remaining())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(nil).Chat(ctx, model.Request{}); model.KindOf(err) != model.ErrCancelled {
		t.Fatalf("cancelled err = %v", err)
	}
}

// A paced model answers no sooner than its pace, and a cancel during the
// wait ends the call at once as a cancellation.
func TestPaced(t *testing.T) {
	const pace = 150 * time.Millisecond
	m := NewPaced([]model.Response{{Message: model.Message{Content: "a"}}, {Message: model.Message{Content: "b"}}}, pace)
	start := time.Now()
	if r, err := m.Chat(context.Background(), model.Request{}); err != nil || r.Message.Content != "a" {
		t.Fatalf("got %q, %v", r.Message.Content, err)
	}
	if took := time.Since(start); took < pace {
		t.Errorf("paced answer after %v, want at least %v", took, pace)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := m.Chat(ctx, model.Request{}); model.KindOf(err) != model.ErrCancelled {
		t.Fatalf("cancel during the pace: err = %v", err)
	}
	if took := time.Since(start); took >= pace {
		t.Errorf("cancelled call took %v, the whole pace", took)
	}
	if m.Remaining() != 1 {
		t.Errorf("a cancelled call consumed a response: remaining %d", m.Remaining())
	}
}
