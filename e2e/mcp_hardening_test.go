package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// rawStdio is a bare JSON-RPC client of `superbiz mcp` over pipes: it
// writes lines as they are and reads the server's frames one by one.
type rawStdio struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan map[string]any
	stderr *syncBuffer
}

// startRaw starts `superbiz ARGS…` with raw pipes and initializes the session.
func startRaw(t *testing.T, e *env, args ...string) *rawStdio {
	t.Helper()
	c := exec.Command(suite.bin, args...)
	c.Env, c.Dir = e.environ(), e.dir
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &rawStdio{cmd: c, stdin: stdin, frames: make(chan map[string]any, 64), stderr: &syncBuffer{}}
	c.Stderr = r.stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	go func() {
		defer close(r.frames)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			r.frames <- m
		}
	}()
	r.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.next(t); m["id"] != "init" || m["result"] == nil {
		t.Fatalf("initialize: %v\n%s", m, r.stderr)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		t.Fatalf("write %.80q: %v\n%s", line, err, r.stderr)
	}
}

// next is the next frame that answers a request (notifications skipped).
func (r *rawStdio) next(t *testing.T) map[string]any {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-r.frames:
			if !ok {
				t.Fatalf("the server closed stdout (exit %v)\n%s", r.cmd.ProcessState, r.stderr)
			}
			if _, isNote := m["method"]; isNote {
				continue
			}
			return m
		case <-timeout:
			t.Fatalf("no answer within 30 s\n%s", r.stderr)
		}
	}
}

// errCode is an answer's JSON-RPC error code, 0 when it has none.
func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// Malformed stdio frames are each answered with a JSON-RPC error and the
// server keeps serving: a ping after every one of them is answered, and
// the process is still there at the end.
func TestMCPMalformedFrames(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	r := startRaw(t, e, "--demo", "mcp")
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	answered := 0
	cases := []struct {
		name, frame string
		code        int
		id          any
	}{
		{"not JSON", `hello there`, jsonrpc.CodeParseError, nil},
		{"cut JSON", `{"jsonrpc":"2.0","id":5,"method":`, jsonrpc.CodeParseError, nil},
		{"deep nesting", deep, jsonrpc.CodeParseError, nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, nil},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, nil},
		{"null", `null`, jsonrpc.CodeInvalidRequest, nil},
		{"number", `42`, jsonrpc.CodeInvalidRequest, nil},
		{"string", `"ping"`, jsonrpc.CodeInvalidRequest, nil},
		{"empty object", `{}`, jsonrpc.CodeInvalidRequest, nil},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
		{"huge id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
		{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, float64(7)},
		{"no jsonrpc", `{"id":8,"method":"ping"}`, jsonrpc.CodeInvalidRequest, float64(8)},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":5}`, jsonrpc.CodeInvalidRequest, float64(9)},
		{"params not an object", `{"jsonrpc":"2.0","id":"p","method":"ping","params":5}`, jsonrpc.CodeInvalidRequest, "p"},
		{"response without result", `{"jsonrpc":"2.0","id":10}`, jsonrpc.CodeInvalidRequest, float64(10)},
		{"oversized frame", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`, jsonrpc.CodeInvalidRequest, nil},
	}
	for _, tc := range cases {
		r.send(t, tc.frame)
		m := r.next(t)
		if errCode(m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s: answer %.300v, want error %d with id %v", tc.name, m, tc.code, tc.id)
		} else {
			answered++
		}
		r.send(t, `{"jsonrpc":"2.0","id":"alive","method":"ping"}`)
		if m := r.next(t); m["id"] != "alive" || m["result"] == nil {
			t.Fatalf("after %s, ping: %.300v\n%s", tc.name, m, r.stderr)
		}
	}
	// Arguments that are not UTF-8 are the tool's refused input, not an
	// envelope error: an MCP client sends no envelope.
	r.send(t, "{\"jsonrpc\":\"2.0\",\"id\":\"utf8\",\"method\":\"tools/call\",\"params\":{\"name\":\"query_logs\",\"arguments\":{\"service\":\"pay\xffment\",\"since\":\"1h\"}}}")
	m := r.next(t)
	res, _ := m["result"].(map[string]any)
	if text := fmt.Sprint(res["content"]); res["isError"] != true || !strings.Contains(text, "INVALID_INPUT") || strings.Contains(text, "ENVELOPE") {
		t.Errorf("arguments with invalid UTF-8: %.400v", m)
	}
	// A second initialize is an invalid request, not code 0.
	r.send(t, `{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if m := r.next(t); errCode(m) != jsonrpc.CodeInvalidRequest || m["id"] != "again" {
		t.Errorf("a second initialize: %.300v, want error %d", m, jsonrpc.CodeInvalidRequest)
	}
	// A prompt without its argument is an invalid-params error, not code 0.
	r.send(t, `{"jsonrpc":"2.0","id":"prompt","method":"prompts/get","params":{"name":"investigate_incident","arguments":{}}}`)
	if m := r.next(t); errCode(m) != jsonrpc.CodeInvalidParams {
		t.Errorf("prompts/get without question: %.300v, want error %d", m, jsonrpc.CodeInvalidParams)
	}
	if r.cmd.ProcessState != nil {
		t.Fatalf("the server exited: %v\n%s", r.cmd.ProcessState, r.stderr)
	}
	reliability.Record(t, reliability.SectionMutation, "malformed stdio frames under superbiz mcp (each answered -32700/-32600, a ping served after each)", map[string]any{
		"test": t.Name(), "outcome": fmt.Sprintf("%d of %d answered, server alive", answered, len(cases)),
	})
}

// A stop signal while a diagnose is in flight cancels it (stored
// CANCELLED, never RUNNING) and exits 143 for SIGTERM or 130 for SIGINT
// with "cancelled" on stderr: over stdio and over streamable HTTP.
func TestMCPStopSignal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
		http bool
	}{
		{"stdio SIGTERM", syscall.SIGTERM, 143, false},
		{"stdio SIGINT", syscall.SIGINT, 130, false},
		{"http SIGTERM", syscall.SIGTERM, 143, true},
		{"stdio SIGTERM query_mysql", syscall.SIGTERM, 143, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			stallSecondRound(srv)
			e := newEnv(t, srv.URL())
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var proc *exec.Cmd
			var s *mcp.ClientSession
			var stderr fmt.Stringer
			// wait returns once the process has exited and all it wrote to
			// stderr is in stderr.
			var wait func() error
			if tc.http {
				p := httpProcess(t, e, "--demo", "mcp", "--http", "127.0.0.1:0")
				proc, stderr, wait = p.cmd, p.stderr, p.wait
				client := mcp.NewClient(&mcp.Implementation{Name: "superbiz-e2e", Version: "1"}, nil)
				var err error
				if s, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.url}, nil); err != nil {
					t.Fatalf("connect: %v", err)
				}
			} else {
				// exec copies stderr into a buffer of ours: Wait returns
				// after the copy has ended.
				proc, _, s, stderr = pipedSession(t, e, nil, "--demo", "mcp")
				wait = proc.Wait
			}
			if strings.Contains(tc.name, "query_mysql") {
				// A statement that runs until its time limit: the signal
				// must cancel it, not wait for the limit.
				go func() {
					_, _ = s.CallTool(ctx, &mcp.CallToolParams{Name: "query_mysql", Arguments: map[string]any{"sql": "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c"}})
				}()
				// Signal once the call is stored RUNNING: the statement
				// starts right after (or the signal finds it about to start;
				// either way a call stopped by the signal, not by its limit,
				// is stored CANCELLED).
				awaitRun(ctx, t, e, false, stderr)
			} else {
				go func() {
					_, _ = s.CallTool(ctx, &mcp.CallToolParams{Name: "diagnose", Arguments: map[string]any{"query": queryPayment}})
				}()
				awaitChats(ctx, t, srv, 2, stderr)
			}
			if err := proc.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- wait() }()
			var err error
			select {
			case err = <-waited:
			case <-time.After(20 * time.Second):
				t.Fatalf("the server did not stop within 20 s of %s\n%s", tc.sig, stderr)
			}
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Errorf("exit %v after %s, want %d\n%s", err, tc.sig, tc.code, stderr)
			}
			if !strings.Contains(stderr.String(), "cancelled") {
				t.Errorf("stderr does not say cancelled:\n%s", stderr)
			}
			if strings.Contains(stderr.String(), "level=ERROR") {
				t.Errorf("a stop signal is logged as an error:\n%s", stderr)
			}
			status, lifecycle := storedRun(t, e, onlyRun(t, e))
			if status != "CANCELLED" || lifecycle != "CANCELLED" {
				t.Errorf("stored %s/%s after %s, want CANCELLED\n%s", status, lifecycle, tc.sig, stderr)
			}
			reliability.Record(t, reliability.SectionMutation, fmt.Sprintf("superbiz mcp (%s) with a diagnose in flight", tc.name), map[string]any{
				"test": t.Name(), "outcome": fmt.Sprintf("exit %d, stored %s", code, status),
			})
		})
	}
}

// httpProc is a `superbiz mcp --http` process the test started: the URL it
// serves, its stderr, and the command (not waited for: use wait).
type httpProc struct {
	url    string
	stderr *syncBuffer
	cmd    *exec.Cmd
	// drained is closed once every byte of stderr is in stderr (the pipe's
	// end of file: the process has exited).
	drained chan struct{}
}

// wait waits for the process to exit and for its stderr to be read to the
// end, so the last line it wrote (the "cancelled" of a stop) is in stderr.
func (p *httpProc) wait() error {
	err := p.cmd.Wait()
	<-p.drained
	return err
}

// httpProcess starts `superbiz ARGS…` (with --http) and returns it once it
// says the URL it serves; the process is killed when the test ends.
//
// Stderr goes through a pipe of the test's own, not exec's StderrPipe:
// Wait closes a StderrPipe as soon as the process exits, which may drop
// the lines written just before (seen under load: the final "cancelled").
func httpProcess(t *testing.T, e *env, args ...string) *httpProc {
	t.Helper()
	c := exec.Command(suite.bin, args...)
	c.Env, c.Dir = e.environ(), e.dir
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = pw
	err = c.Start()
	pw.Close() // the child holds its own copy: end of file when it exits
	if err != nil {
		pr.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	p := &httpProc{stderr: &syncBuffer{}, cmd: c, drained: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		defer close(p.drained)
		defer pr.Close()
		defer close(urls)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			fmt.Fprintln(p.stderr, sc.Text())
			if u, ok := strings.CutPrefix(sc.Text(), "superbiz: MCP streamable HTTP on "); ok {
				select {
				case urls <- u:
				default: // said once; never block the reading
				}
			}
		}
		_, _ = io.Copy(p.stderr, pr) // what follows a line too long to scan
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatalf("superbiz %q ended without a listening line:\n%s", args, p.stderr)
		}
		p.url = u
		return p
	case <-time.After(time.Minute):
		t.Fatalf("no listening line within a minute:\n%s", p.stderr)
	}
	return nil
}

// Calls cancelled while they wait for a --max-calls slot are audited: each
// accepted call is a stored TOOL_CALL run, CANCELLED, none left out.
func TestMCPQueuedCancelAudited(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	stallSecondRound(srv)
	e := newEnv(t, srv.URL())
	c := exec.Command(suite.bin, "--demo", "mcp", "--max-calls", "1")
	c.Env, c.Dir = e.environ(), e.dir
	stderr := &syncBuffer{}
	c.Stderr = stderr
	written := &callsWritten{Transport: &mcp.CommandTransport{Command: c, TerminateDuration: 20 * time.Second}, n: make(chan struct{}, 16)}
	connCtx, connCancel := context.WithTimeout(context.Background(), time.Minute)
	s, err := mcp.NewClient(&mcp.Implementation{Name: "superbiz-e2e", Version: "1"}, nil).Connect(connCtx, written, nil)
	connCancel()
	if err != nil {
		t.Fatalf("connect to superbiz mcp: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	diagCtx, cancelDiag := context.WithCancel(ctx)
	defer cancelDiag()
	go func() {
		_, _ = s.CallTool(diagCtx, &mcp.CallToolParams{Name: "diagnose", Arguments: map[string]any{"query": queryPayment}})
	}()
	awaitChats(ctx, t, srv, 2, stderr)
	const queued = 6
	qctx, cancelQueued := context.WithCancel(ctx)
	done := make(chan struct{}, queued)
	for range queued {
		go func() {
			_, _ = s.CallTool(qctx, &mcp.CallToolParams{Name: "query_logs", Arguments: json.RawMessage(inPaymentErrors)})
			done <- struct{}{}
		}()
	}
	// Cancel only once every call was written to the server: the diagnose
	// and the queued ones (whatever queue holds them, ours or the SDK's).
	for range queued + 1 {
		select {
		case <-written.n:
		case <-ctx.Done():
			t.Fatalf("the calls were not all written:\n%s", stderr)
		}
	}
	cancelQueued()
	for range queued {
		<-done
	}
	cancelDiag()
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs := runStatus(t, e)
		cancelled := 0
		for _, st := range runs {
			if st[0] == "CANCELLED" {
				cancelled++
			}
		}
		if cancelled == queued+1 {
			reliability.Record(t, reliability.SectionMutation, "calls cancelled while queued for a --max-calls slot", map[string]any{
				"test": t.Name(), "outcome": fmt.Sprintf("%d of %d stored CANCELLED", cancelled-1, queued),
			})
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stored runs %v: want the diagnose and all %d queued calls CANCELLED\n%s", runs, queued, stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// callsWritten is a client transport that signals n each time a
// tools/call request has been written to the server.
type callsWritten struct {
	mcp.Transport
	n chan struct{}
}

// Connect implements mcp.Transport.
func (t *callsWritten) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &callsWrittenConn{Connection: c, n: t.n}, nil
}

type callsWrittenConn struct {
	mcp.Connection
	n chan struct{}
}

// Write implements mcp.Connection.
func (c *callsWrittenConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Request); ok && err == nil && r.Method == "tools/call" {
		c.n <- struct{}{}
	}
	return err
}

// Streamable HTTP: a token of white space only is refused as an empty one;
// a request from another Origin gets 403; an idle session is closed after
// --session-timeout, so a request naming it gets 404.
func TestMCPHTTPHardening(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["BLANK_TOKEN"] = " \t "
	r := e.run(t, "--demo", "mcp", "--http", "127.0.0.1:0", "--token-env", "BLANK_TOKEN")
	if r.code != 2 || !strings.Contains(r.stderr, "white space") {
		t.Errorf("a blank token: want exit 2 saying white space\n%s", r)
	}

	p := httpProcess(t, e, "--demo", "mcp", "--http", "127.0.0.1:0", "--session-timeout", "1s")
	url, stderr := p.url, p.stderr
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	// post sends one frame and gives the status and the session id answered.
	post := func(body, origin, session string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST: %v\n%s", err, stderr)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://evil.example", http.StatusForbidden},
		{"http://" + host + ".evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://" + host, http.StatusOK},
		{"", http.StatusOK},
	} {
		if code, _ := post(initialize, tc.origin, ""); code != tc.want {
			t.Errorf("Origin %q: HTTP %d, want %d", tc.origin, code, tc.want)
		}
	}
	_, session := post(initialize, "", "")
	if session == "" {
		t.Fatalf("initialize gave no session id")
	}
	if code, _ := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", session); code >= 300 {
		t.Fatalf("initialized: HTTP %d", code)
	}
	idle := time.Now() // the session is idle from the end of this ping on
	if code, _ := post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "", session); code != http.StatusOK {
		t.Fatalf("ping in the live session: HTTP %d", code)
	}
	// The session's event stream (GET) does not count as a request: it
	// stays open while the session lives and ends when --session-timeout
	// closes it, the event this waits for.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET the session's event stream: %v\n%s", err, stderr)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the session's event stream: HTTP %d", resp.StatusCode)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("the session's event stream did not end when the session timed out: %v\n%s", err, stderr)
	}
	if waited := time.Since(idle); waited < time.Second {
		t.Errorf("the session was closed after %v idle, before --session-timeout 1s", waited)
	}
	if code, _ := post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "", session); code != http.StatusNotFound {
		t.Errorf("ping in a session idle past --session-timeout: HTTP %d, want 404", code)
	}
}
