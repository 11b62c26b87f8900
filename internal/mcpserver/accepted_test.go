package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tools/call cancelled while it waits in the SDK's queue, before any
// handler of ours sees it, is still audited: the service is called on its
// name and input with its context ended (stored CANCELLED), exactly once,
// before its answer goes out. A call cancelled at the end of the input
// (the client went away) is audited too. The SDK dispatches requests in
// order, so a notification held in a middleware keeps the calls behind it
// in the queue; the SDK's canceller acts on notifications/cancelled at once.
func TestCallCancelledInTheSDKQueueIsAudited(t *testing.T) {
	for _, tc := range []struct {
		name string
		// cancel ends the queued calls: a notifications/cancelled naming
		// them, or the end of the input.
		byEOF bool
	}{
		{name: "notifications/cancelled"},
		{name: "end of input", byEOF: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &recorder{}
			s, err := New(svc, Options{Name: "superbiz", Version: "test", MaxCalls: 4, MaxDiagnose: 1})
			if err != nil {
				t.Fatal(err)
			}
			held, release := make(chan struct{}), make(chan struct{})
			releaseOnce := sync.OnceFunc(func() { close(release) })
			t.Cleanup(releaseOnce)
			s.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "notifications/roots/list_changed" {
						close(held)
						<-release
					}
					return next(ctx, method, req)
				}
			})
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- s.RunIO(context.Background(), inR, outW); _ = outW.Close() }()
			answers := make(chan map[string]json.RawMessage, 256) // more than the frames sent: the server never blocks on it
			go func() {
				defer close(answers)
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					var m map[string]json.RawMessage
					if json.Unmarshal(sc.Bytes(), &m) == nil {
						answers <- m
					}
				}
			}()
			send := func(frame string) {
				t.Helper()
				if _, err := io.WriteString(inW, frame+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[string]map[string]json.RawMessage{}
			answer := func(id string) map[string]json.RawMessage {
				t.Helper()
				timeout := time.After(10 * time.Second)
				for seen[id] == nil {
					select {
					case m, ok := <-answers:
						if !ok {
							t.Fatalf("the server ended before answering id %s", id)
						}
						seen[string(m["id"])] = m
					case <-timeout:
						t.Fatalf("no answer to id %s within 10 s", id)
					}
				}
				return seen[id]
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"x","version":"1"}}}`)
			answer("1")
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			<-held // the SDK's dispatch waits on it: what follows stays queued
			for id := 2; id <= 4; id++ {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"query_logs","arguments":{"n":%d}}}`, id, id))
			}
			// A tool this package does not audit is not audited when queued.
			send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"runs_list","arguments":{}}}`)
			if tc.byEOF {
				_ = inW.Close()
			} else {
				for id := 2; id <= 5; id++ {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, id))
				}
				// The SDK cancels a request on a goroutine it starts as it
				// reads the notification; the pings (queued, answered after
				// the release) give those goroutines time to run. A call
				// the SDK still dispatches is handled by our handler, and
				// audited once all the same.
				for id := 10; id < 30; id++ {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
				}
			}
			releaseOnce()
			if !tc.byEOF {
				queued := 0
				for id := 2; id <= 5; id++ {
					if _, ok := answer(fmt.Sprint(id))["error"]; ok && id < 5 {
						// Answered by the SDK from its queue: audited here,
						// its context ended.
						queued++
						if c := fmt.Sprintf(`query_logs {"n":%d} (cancelled)`, id); !slices.Contains(svc.calls(), c) {
							t.Errorf("call %d answered from the queue, not audited before its answer: calls %q", id, svc.calls())
						}
					}
				}
				if queued == 0 {
					t.Fatal("the SDK dispatched every cancelled call: nothing was cancelled in its queue")
				}
			}
			// Each audited call reaches the service once: cancelled in the
			// queue (audited here, its context ended), or dispatched first.
			got := []string{}
			if tc.byEOF {
				if err := <-done; err != nil {
					t.Fatalf("the server ended with %v", err)
				}
			}
			for _, c := range svc.calls() {
				if strings.HasPrefix(c, "query_logs") {
					got = append(got, strings.TrimSuffix(c, " (cancelled)"))
				}
			}
			slices.Sort(got)
			want := []string{`query_logs {"n":2}`, `query_logs {"n":3}`, `query_logs {"n":4}`}
			if !slices.Equal(got, want) {
				t.Errorf("calls reaching the service %q\nwant each queued audited call once: %q", svc.calls(), want)
			}
			if !tc.byEOF {
				_ = inW.Close()
				if err := <-done; err != nil {
					t.Fatalf("the server ended with %v", err)
				}
				n := 0
				for _, c := range svc.calls() {
					if strings.HasPrefix(c, "query_logs") {
						n++
					}
				}
				if n != len(want) {
					t.Errorf("calls after the end %q: a call audited twice", svc.calls())
				}
			}
		})
	}
}
