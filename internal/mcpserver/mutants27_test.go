package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/superbiz/superbiz/pkg/egress"
)

// recorder is a Service that records what reached it: the server's own
// checks are what these tests hold, so the service answers plainly.
type recorder struct {
	mu     sync.Mutex
	called []string
	// fail, when set, is the error CallTool returns.
	fail error
	// structured, when set, is CallTool's structured-only answer.
	structured json.RawMessage
	// hold, when set, is waited on by Diagnose and by a CallTool of
	// "hold_logs" (or until their context ends).
	hold chan struct{}
	// steps are the progress values Diagnose reports, in order.
	steps []int
}

// wait blocks on r.hold (when set) or until ctx ends.
func (r *recorder) wait(ctx context.Context) {
	if r.hold == nil {
		return
	}
	select {
	case <-r.hold:
	case <-ctx.Done():
	}
}

func (r *recorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.called = append(r.called, s)
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.called...)
}

func (r *recorder) Tools() []Tool {
	return []Tool{
		{Name: "query_logs", Description: "logs", Input: json.RawMessage(`{"type":"object"}`)},
		{Name: "hold_logs", Description: "logs, held until released", Input: json.RawMessage(`{"type":"object"}`)},
	}
}

func (r *recorder) CallTool(ctx context.Context, name string, input json.RawMessage, _ func(Progress)) (Result, error) {
	ended := ""
	if ctx.Err() != nil {
		ended = " (cancelled)"
	}
	r.note(name + " " + string(input) + ended)
	if name == "hold_logs" {
		r.wait(ctx)
	}
	if r.fail != nil {
		return Result{}, r.fail
	}
	if r.structured != nil {
		obs, err := egress.MaskJSON(r.structured)
		if err != nil {
			return Result{}, err
		}
		return Result{Structured: obs}, nil
	}
	return Result{Text: egress.Const("ok")}, nil
}

func (r *recorder) Diagnose(ctx context.Context, in DiagnoseInput, progress func(Progress)) (Result, error) {
	r.note("diagnose " + in.Query + "|" + in.Alert)
	for _, v := range r.steps {
		progress(Progress{Used: v, Max: 10, Message: egress.Const("step")})
	}
	r.wait(ctx)
	return Result{Text: egress.Const("ok")}, nil
}

func (r *recorder) ListAlerts(context.Context) (Result, error) {
	r.note("alerts")
	return Result{Text: egress.Const("ok")}, nil
}

func (r *recorder) ListRuns(_ context.Context, in RunsListInput) (Result, error) {
	b, _ := json.Marshal(in)
	r.note("runs_list " + string(b))
	return Result{Text: egress.Const("ok")}, nil
}

func (r *recorder) ShowRun(_ context.Context, in RunShowInput) (Result, error) {
	r.note("run_show " + in.RunID)
	return Result{Text: egress.Const("ok")}, nil
}

func (r *recorder) Runbooks(context.Context) ([]Document, error) { return nil, nil }

func (r *recorder) Runbook(context.Context, string) (Document, bool, error) {
	return Document{}, false, nil
}

func (r *recorder) Skills() []Document { return nil }

// connect serves svc over an in-memory MCP connection and returns the
// client's session.
func connect(t *testing.T, svc Service) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, svc, 4, 1, nil)
}

// connectWith is connect with the server's call slots and the client's options.
func connectWith(t *testing.T, svc Service, maxCalls, maxDiagnose int, copts *mcp.ClientOptions, mws ...mcp.Middleware) *mcp.ClientSession {
	t.Helper()
	_, cs := serveWith(t, svc, maxCalls, maxDiagnose, copts, mws...)
	return cs
}

// serveWith is connectWith that also gives the server, for a test that
// watches its slots.
func serveWith(t *testing.T, svc Service, maxCalls, maxDiagnose int, copts *mcp.ClientOptions, mws ...mcp.Middleware) (*Server, *mcp.ClientSession) {
	t.Helper()
	s, err := New(svc, Options{Name: "superbiz", Version: "test", MaxCalls: maxCalls, MaxDiagnose: maxDiagnose})
	if err != nil {
		t.Fatal(err)
	}
	s.server.AddReceivingMiddleware(mws...)
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the server ended with %v", err)
		}
	})
	return s, cs
}

// call sends one tools/call with raw arguments and returns the result's text.
func call(t *testing.T, cs *mcp.ClientSession, name, args string) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return res, strings.Join(text, "\n")
}

// The server's own input checks, as a client meets them: each refused
// input is an INVALID_INPUT tool result that never reaches the service,
// each accepted one reaches it as sent.
func TestServerRefusesBeforeTheService(t *testing.T) {
	svc := &recorder{}
	cs := connect(t, svc)
	for _, tt := range []struct {
		tool, args string
		refused    bool
		says       string
	}{
		{ToolDiagnose, `{}`, true, "the query is empty"},
		{ToolDiagnose, `{"query":"q","alert":"A"}`, true, "exclusive"},
		{ToolDiagnose, `{"query":"payments time out"}`, false, ""},
		{ToolRunsList, `{"limit":201}`, true, "limit must be 1 to 200"},
		{ToolRunsList, `{"limit":200}`, false, ""},
		{ToolRunsList, `{"sesion":"s1"}`, true, "unknown field"},
		{ToolRunShow, `{"run_id":"  "}`, true, "run_id is required"},
		{ToolRunShow, `{"run_id":"r1"}`, false, ""},
		{"query_logs", "{\"service\":\"pay\xffment\"}", true, "not valid UTF-8"},
		{"query_logs", `{"service":"payment"}`, false, ""},
	} {
		before := len(svc.calls())
		res, text := call(t, cs, tt.tool, tt.args)
		reached := len(svc.calls()) > before
		if tt.refused {
			if !res.IsError || !strings.Contains(text, CodeInvalidInput) || !strings.Contains(text, tt.says) || reached {
				t.Errorf("%s %s: isError %v, %q, reached the service %v; want refused (%s, %q) before the service", tt.tool, tt.args, res.IsError, text, reached, CodeInvalidInput, tt.says)
			}
			continue
		}
		if res.IsError || !reached {
			t.Errorf("%s %s: isError %v %q, reached the service %v; want it served", tt.tool, tt.args, res.IsError, text, reached)
		}
	}
}

// A failure of the service is an isError result whose text is redacted;
// a structured-only answer is shown as its JSON text too.
func TestServerResultText(t *testing.T) {
	svc := &recorder{fail: errors.New("connect to db: password=hunter2 refused")}
	cs := connect(t, svc)
	res, text := call(t, cs, "query_logs", `{"since":"1h"}`)
	if !res.IsError || strings.Contains(text, "hunter2") || !strings.Contains(text, "[REDACTED]") {
		t.Errorf("service failure: isError %v, text %q; want the password masked", res.IsError, text)
	}
	svc2 := &recorder{structured: json.RawMessage(`{"matched":3}`)}
	cs2 := connect(t, svc2)
	res, text = call(t, cs2, "query_logs", `{"since":"1h"}`)
	if res.IsError || text != `{"matched":3}` {
		t.Errorf("structured-only answer: isError %v, text %q; want its JSON as the text", res.IsError, text)
	}
}

// A call cancelled while it waits for a free slot still reaches the service,
// with its context ended, so that it is audited (stored CANCELLED).
func TestQueuedCancelledCallReachesTheService(t *testing.T) {
	svc := &recorder{hold: make(chan struct{})}
	mw, second := onCall(2)
	cs := connectWith(t, svc, 1, 1, nil, mw)
	release := sync.OnceFunc(func() { close(svc.hold) })
	t.Cleanup(release) // before the connection closes, also when the test fails
	first := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold_logs", Arguments: json.RawMessage(`{"n":1}`)})
		first <- err
	}()
	waitFor(t, func() bool { return len(svc.calls()) == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query_logs", Arguments: json.RawMessage(`{"n":2}`)})
	}()
	<-second // the server holds it: queued behind the first
	cancel()
	<-answered
	waitFor(t, func() bool { return len(svc.calls()) == 2 })
	if got := svc.calls(); got[1] != `query_logs {"n":2} (cancelled)` {
		t.Errorf("calls %q: want the queued call audited with its context ended", got)
	}
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// A diagnosis cancelled while it waits for the diagnosis slot gives back
// the call slot it took: with one diagnosis running and two call slots, an
// evidence call is still served.
func TestQueuedDiagnosisGivesBackItsCallSlot(t *testing.T) {
	svc := &recorder{hold: make(chan struct{})}
	mw, second := onCall(2)
	srv, cs := serveWith(t, svc, 2, 1, nil, mw)
	t.Cleanup(func() { close(svc.hold) }) // before the connection closes
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolDiagnose, Arguments: json.RawMessage(`{"query":"first"}`)})
	}()
	waitFor(t, func() bool { return len(svc.calls()) == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	queued := make(chan struct{})
	go func() {
		defer close(queued)
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolDiagnose, Arguments: json.RawMessage(`{"query":"second"}`)})
	}()
	<-second
	// Cancelled only once it holds the second call slot and waits for the
	// diagnosis slot: cancelled sooner, it takes none, and the test would
	// pass without exercising the give-back.
	waitFor(t, func() bool { return len(srv.calls) == 2 })
	cancel()
	<-queued
	// bounded: a lost slot would hold this call until the first diagnosis ends
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "query_logs", Arguments: json.RawMessage(`{}`)})
	if err != nil || res.IsError {
		t.Fatalf("an evidence call beside the running diagnosis: %v %+v", err, res)
	}
}

// Progress notifications strictly increase, though the budget reports the
// same count twice.
func TestProgressIncreases(t *testing.T) {
	var mu sync.Mutex
	var got []float64
	svc := &recorder{steps: []int{1, 1, 3, 2}}
	cs := connectWith(t, svc, 4, 1, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, req.Params.Progress)
	}})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolDiagnose, Arguments: json.RawMessage(`{"query":"q"}`), Meta: mcp.Meta{"progressToken": "p1"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 4 })
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("progress %v does not increase", got)
		}
	}
}

// onCall is a middleware that closes the returned channel when the server
// receives its n-th tools/call, before the call's handler runs: a test
// cancels a call only once the server holds it.
func onCall(n int) (mcp.Middleware, <-chan struct{}) {
	var mu sync.Mutex
	seen := 0
	ch := make(chan struct{})
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				mu.Lock()
				if seen++; seen == n {
					close(ch)
				}
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	}, ch
}

// waitFor polls cond until it holds, failing after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Frames the transport admits or answers as errors, beyond TestCheckFrame:
// JSON-RPC allows array params; a response needs a result or an error.
func TestCheckFrameMutationPass(t *testing.T) {
	for _, tt := range []struct {
		frame string
		code  int
	}{
		{`{"jsonrpc":"2.0","id":9,"method":"ping","params":[]}`, 0},
		{`{"jsonrpc":"2.0","id":8}`, jsonrpc.CodeInvalidRequest},
	} {
		if _, _, code, _ := checkFrame([]byte(tt.frame)); code != tt.code {
			t.Errorf("%s: code %d, want %d", tt.frame, code, tt.code)
		}
	}
}
