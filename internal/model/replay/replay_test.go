package replay

import (
	"context"
	"errors"
	"testing"

	"github.com/superbiz/superbiz/internal/model"
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
