package e2e

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// mcpSession starts `superbiz ARGS…` (ARGS include mcp) under e through the SDK's own
// CommandTransport and connects the SDK client to it; stderr is collected.
func mcpSession(t *testing.T, e *env, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	s, stderr, err := connectMCP(e, opts, args...)
	if err != nil {
		t.Fatalf("connect to superbiz mcp: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, stderr
}

// connectMCP starts the server and connects the SDK client, giving back
// the error of a server that did not start (the caller closes the session).
func connectMCP(e *env, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *syncBuffer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.Command(suite.bin, args...)
	c.Env, c.Dir = e.environ(), e.dir
	stderr := &syncBuffer{}
	c.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "superbiz-e2e", Version: "1"}, opts)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: c, TerminateDuration: 20 * time.Second}, nil)
	return s, stderr, err
}

// syncBuffer is a bytes.Buffer a process and the test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// pipedSession starts `superbiz ARGS…` (ARGS include mcp) with its stdin and stdout on
// pipes the test holds, and connects the SDK client over them; raw, when
// not nil, receives every byte the process wrote to stdout.
func pipedSession(t *testing.T, e *env, raw io.Writer, args ...string) (*exec.Cmd, io.Closer, *mcp.ClientSession, *syncBuffer) {
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
	stderr := &syncBuffer{}
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	var r io.Reader = stdout
	if raw != nil {
		r = io.TeeReader(stdout, raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "superbiz-e2e", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	return c, stdin, s, stderr
}

// stallSecondRound scripts a diagnosis that reads its playbook, then waits
// 30 s before the model's second answer: a run to interrupt in flight.
func stallSecondRound(srv *ollamatest.Server) {
	srv.Script(
		skill("call_e2e0001", "diagnose-payment-timeout"),
		ollamatest.Turn{FirstByteDelay: 30 * time.Second, Content: []string{"never sent"}},
	)
}

// awaitChats waits (bounded by ctx) until srv has received n chat requests.
func awaitChats(ctx context.Context, t *testing.T, srv *ollamatest.Server, n int, stderr fmt.Stringer) {
	t.Helper()
	for srv.ChatCount() < n {
		if ctx.Err() != nil {
			t.Fatalf("model request %d never arrived\n%s", n, stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// callTool calls one tool with arguments given as JSON.
func callTool(t *testing.T, s *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("call %s %s: %v", name, args, err)
	}
	return res
}

// structured decodes a result's structuredContent into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("structured content: %v", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// The demo workspace through the SDK client: the tools the agent has, under
// its names and with the schemas `tools list` declares inside the envelope,
// each annotated read-only; every evidence tool answers as `tools call`
// does, a refused input is isError with tools call's message; diagnose runs
// the scripted payment case to a released SUCCESS with progress, and
// runs_list and run_show find the run; resources and the prompt are served.
func TestMCPStdioDemo(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	var progress []*mcp.ProgressNotificationParams
	var mu sync.Mutex
	s, stderr := mcpSession(t, e, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params)
		mu.Unlock()
	}}, "--demo", "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	init := s.InitializeResult()
	if init.ServerInfo.Name != "superbiz" || init.ServerInfo.Version == "" {
		t.Errorf("server info %+v, want superbiz with a version", init.ServerInfo)
	}
	lt, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	var names []string
	tools := map[string]*mcp.Tool{}
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		tools[tl.Name] = tl
		a := tl.Annotations
		if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations %+v, want readOnly true, destructive false, openWorld false", tl.Name, a)
		}
		if tl.Description == "" || strings.Contains(tl.Description, "\n") {
			t.Errorf("%s description %q, want one line", tl.Name, tl.Description)
		}
		if tl.OutputSchema == nil {
			t.Errorf("%s has no output schema", tl.Name)
		}
	}
	slices.Sort(names)
	// The demo has no metrics source and no [alerts]: no query_metrics, no
	// list_alerts; its logs give build_timeline.
	want := []string{"build_timeline", "diagnose", "lookup_knowledge", "query_logs", "query_mysql", "read_skill", "run_show", "runs_list"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	// The input schemas are the business inputs the model gets in `input`.
	r := e.run(t, "--demo", "tools", "list", "-o", "json")
	var defs []struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties struct {
				Input json.RawMessage `json:"input"`
			} `json:"properties"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &defs); err != nil {
		t.Fatalf("tools list -o json: %v\n%s", err, r)
	}
	for _, d := range defs {
		if d.Name == "read_skill" {
			continue
		}
		got, _ := json.Marshal(tools[d.Name].InputSchema)
		if !jsonEqual(t, got, d.Parameters.Properties.Input) {
			t.Errorf("%s input schema\n%s\nwant the envelope's input\n%s", d.Name, got, d.Parameters.Properties.Input)
		}
	}

	// Each evidence tool, as tools call runs it.
	for _, tc := range []struct{ tool, args, status string }{
		{"query_logs", inPaymentErrors, found},
		{"query_mysql", inSlowSince14, found},
		{"lookup_knowledge", inPaymentKB, found},
		{"query_logs", inNoInventory, none},
		{"build_timeline", `{"since":"2h"}`, found},
	} {
		res := callTool(t, s, tc.tool, tc.args)
		var obs struct {
			Tool           string `json:"tool"`
			EvidenceStatus string `json:"evidence_status"`
		}
		structured(t, res, &obs)
		if res.IsError || obs.Tool != tc.tool || obs.EvidenceStatus != tc.status {
			t.Errorf("%s %s: isError %v, observation %+v, want %s", tc.tool, tc.args, res.IsError, obs, tc.status)
		}
		cli := e.run(t, "--demo", "tools", "call", "-o", "json", tc.tool, tc.args)
		got, _ := json.Marshal(res.StructuredContent)
		if !jsonEqual(t, got, []byte(cli.stdout)) {
			t.Errorf("%s: MCP observation differs from tools call's\nmcp: %s\ncli: %s", tc.tool, got, cli.stdout)
		}
	}
	res := callTool(t, s, "read_skill", `{"name":"diagnose-payment-timeout"}`)
	if res.IsError || !strings.Contains(string(fixture.JSON(t, res.StructuredContent)), "diagnose-payment-timeout") {
		t.Errorf("read_skill: isError %v, %s", res.IsError, fixture.JSON(t, res.StructuredContent))
	}

	// Malformed inputs: the same code and message as tools call, isError, and
	// the server keeps serving.
	for _, tc := range []struct{ tool, args, code string }{
		{"query_logs", `{"service":"payment-service","levl":"ERROR","since":"1h"}`, "INVALID_INPUT"},
		{"query_mysql", `{"sql":"DELETE FROM orders"}`, "NOT_READ_ONLY"},
		{"query_logs", `{"since":"1000h"}`, "INVALID_INPUT"},
	} {
		res := callTool(t, s, tc.tool, tc.args)
		cli := e.run(t, "--demo", "tools", "call", "-o", "json", tc.tool, tc.args)
		// encoding/json/v2 says "cannot" or "unable to" at random per process.
		msg := strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(cli.stderr), "superbiz: "), "unable to", "cannot")
		if !res.IsError || strings.ReplaceAll(resultText(res), "unable to", "cannot") != msg || !strings.Contains(resultText(res), tc.code) || cli.code != 2 {
			t.Errorf("%s %s: isError %v text %q; tools call exit %d says %q; want isError with that message and %s", tc.tool, tc.args, res.IsError, resultText(res), cli.code, msg, tc.code)
		}
	}
	for _, tc := range []struct{ tool, args, has string }{
		{"diagnose", `{"query":5}`, "diagnose rejected the input (INVALID_INPUT)"},
		{"diagnose", `{}`, "the query is empty"},
		{"diagnose", `{"query":"x","alert":"HighLatency"}`, "exclusive"},
		{"run_show", `{"run_id":"r_nope"}`, "r_nope"},
		{"runs_list", `{"limit":0.5}`, "INVALID_INPUT"},
	} {
		res := callTool(t, s, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(resultText(res), tc.has) {
			t.Errorf("%s %s: isError %v text %q, want isError saying %q", tc.tool, tc.args, res.IsError, resultText(res), tc.has)
		}
	}
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool answered without a protocol error")
	}

	// diagnose: the scripted payment case, released SUCCESS, with progress.
	srv.Script(append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))...)
	params := &mcp.CallToolParams{Name: "diagnose", Arguments: map[string]any{"query": queryPayment}}
	params.SetProgressToken("diag-1")
	dres, err := s.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("diagnose: %v\nstderr:\n%s", err, stderr)
	}
	var out diagnoseOutput
	structured(t, dres, &out)
	var pub published
	if err := json.Unmarshal(out.Result, &pub); err != nil {
		t.Fatalf("diagnose result: %v", err)
	}
	if dres.IsError || out.ReleaseOutcome != "SUCCESS" || out.RunID == "" || pub.Conclusion == nil || len(pub.Findings) == 0 || len(pub.Findings[0].Sources) == 0 {
		t.Fatalf("diagnose: isError %v, outcome %s, run %q, result %s\n%s", dres.IsError, out.ReleaseOutcome, out.RunID, out.Result, resultText(dres))
	}
	if !strings.Contains(resultText(dres), "##") {
		t.Errorf("diagnose text is not the Markdown answer: %q", resultText(dres))
	}
	mu.Lock()
	got := slices.Clone(progress)
	mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("got %d progress notifications, want one per budget snapshot", len(got))
	}
	last := got[len(got)-1]
	if last.ProgressToken != "diag-1" || last.Total != float64(8+6) || !strings.Contains(last.Message, "model calls") || !strings.Contains(last.Message, "tool calls") {
		t.Errorf("last progress %+v, want token diag-1, total 14 and the calls used", last)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress <= got[i-1].Progress {
			t.Errorf("progress %v after %v: not increasing", got[i].Progress, got[i-1].Progress)
		}
	}
	var runs struct {
		Runs []struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	structured(t, callTool(t, s, "runs_list", `{"limit":5}`), &runs)
	if len(runs.Runs) == 0 || runs.Runs[0].RunID != out.RunID || runs.Runs[0].Status != "SUCCESS" {
		t.Errorf("runs_list %+v, want %s SUCCESS first", runs, out.RunID)
	}
	var shown struct {
		RunID       string            `json:"run_id"`
		Invocations []json.RawMessage `json:"invocations"`
	}
	structured(t, callTool(t, s, "run_show", `{"run_id":"`+out.RunID+`"}`), &shown)
	if shown.RunID != out.RunID || len(shown.Invocations) != 5 {
		t.Errorf("run_show: run %s with %d invocations, want %s with 5", shown.RunID, len(shown.Invocations), out.RunID)
	}

	// Resources and the prompt.
	lr, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("list resources: %v", err)
	}
	var runbook, playbook string
	for _, r := range lr.Resources {
		switch {
		case strings.HasPrefix(r.URI, "superbiz://runbooks/") && strings.Contains(r.URI, "mysql-connection-pool"):
			runbook = r.URI
		case r.URI == "superbiz://skills/diagnose-payment-timeout":
			playbook = r.URI
		}
	}
	if runbook == "" || playbook == "" {
		t.Fatalf("resources lack a runbook or the payment playbook: %+v", lr.Resources)
	}
	for _, uri := range []string{runbook, playbook} {
		rr, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || len(strings.TrimSpace(rr.Contents[0].Text)) < 100 {
			t.Errorf("read %s: %v %+v", uri, err, rr)
		}
	}
	if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "superbiz://skills/no-such-playbook"}); err == nil {
		t.Error("an unknown playbook resource was served")
	}
	lrt, err := s.ListResourceTemplates(ctx, nil)
	if err != nil || len(lrt.ResourceTemplates) != 2 {
		t.Errorf("resource templates: %v %+v", err, lrt)
	}
	gp, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "investigate_incident", Arguments: map[string]string{"question": queryPayment}})
	if err != nil || len(gp.Messages) != 1 || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, queryPayment) {
		t.Errorf("prompt: %v %+v", err, gp)
	}
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// storedRun reads a run's status and lifecycle straight from the store file.
func storedRun(t *testing.T, e *env, runID string) (status, lifecycle string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT status, COALESCE(lifecycle, '') FROM runs WHERE id = ?`, runID).Scan(&status, &lifecycle); err != nil {
		t.Fatalf("read run %s: %v", runID, err)
	}
	return status, lifecycle
}

// onlyRun is the one run the store holds.
func onlyRun(t *testing.T, e *env) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id string
	if err := db.QueryRow(`SELECT id FROM runs`).Scan(&id); err != nil {
		t.Fatalf("read the one run: %v", err)
	}
	return id
}

// A client that cancels a diagnose in flight (notifications/cancelled) gets
// the run stored CANCELLED, and the server serves the next call; a client
// that disconnects mid-diagnose leaves its run CANCELLED, not RUNNING.
func TestMCPDiagnoseCancelAndDisconnect(t *testing.T) {
	t.Parallel()
	for _, disconnect := range []bool{false, true} {
		name := map[bool]string{false: "cancel", true: "disconnect"}[disconnect]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			stallSecondRound(srv)
			e := newEnv(t, srv.URL())
			var s *mcp.ClientSession
			var stderr *syncBuffer
			var proc *exec.Cmd
			var stdin io.Closer
			if disconnect {
				// The client goes away: its end of the pipe closes under a
				// call in flight, as when the editor quits.
				proc, stdin, s, stderr = pipedSession(t, e, nil, "--demo", "mcp")
			} else {
				s, stderr = mcpSession(t, e, nil, "--demo", "mcp")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			callCtx, cancelCall := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := s.CallTool(callCtx, &mcp.CallToolParams{Name: "diagnose", Arguments: map[string]any{"query": queryPayment}})
				done <- err
			}()
			awaitChats(ctx, t, srv, 2, stderr)
			start := time.Now()
			if disconnect {
				if err := stdin.Close(); err != nil {
					t.Fatalf("close the server's stdin: %v", err)
				}
				waited := make(chan error, 1)
				go func() { waited <- proc.Wait() }()
				select {
				case err := <-waited:
					if err != nil {
						t.Errorf("the server exited with %v after its client left\n%s", err, stderr)
					}
				case <-ctx.Done():
					t.Fatalf("the server did not exit after its client left\n%s", stderr)
				}
			} else {
				cancelCall()
			}
			if !disconnect {
				if err := <-done; err == nil {
					t.Error("the cancelled diagnose call returned no error")
				}
			}
			cancelCall()
			if !disconnect {
				// The server goes on: the cancelled run is stored, and a
				// further call is served.
				var runs struct {
					Runs []struct {
						RunID, Status string
					} `json:"runs"`
				}
				deadline := time.Now().Add(20 * time.Second)
				for {
					structured(t, callTool(t, s, "runs_list", `{}`), &runs)
					if len(runs.Runs) == 1 && runs.Runs[0].Status != "RUNNING" || time.Now().After(deadline) {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				if len(runs.Runs) != 1 || runs.Runs[0].Status != "CANCELLED" {
					t.Fatalf("runs_list after the cancel: %+v, want one CANCELLED run\n%s", runs, stderr)
				}
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("the run took %s to stop after the %s", d, name)
			}
			status, lifecycle := storedRun(t, e, onlyRun(t, e))
			if status != "CANCELLED" || lifecycle != "CANCELLED" {
				t.Errorf("stored status %q lifecycle %q after the %s, want CANCELLED\nstderr:\n%s", status, lifecycle, name, stderr)
			}
		})
	}
}

// stdout carries only protocol frames even when a source's text holds ANSI
// escapes and a line that looks like a JSON-RPC message: every line the
// process writes to stdout is one JSON-RPC 2.0 message answering the
// client, and the escape never reaches it.
func TestMCPStdoutOnlyFrames(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	logDir := filepath.Join(e.dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	hostile := "2026-11-28 14:00:00 ERROR payment-service - \x1b[31mboom\x1b[0m\x1b]0;owned\x07 failed\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` + "\n" +
		"2026-11-28 14:00:01 ERROR payment-service - {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n"
	if err := os.WriteFile(filepath.Join(logDir, "app.log"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[[logs]]\nname = \"app\"\npaths = [\""+filepath.Join(logDir, "*.log")+"\"]\nformat = \"text\"\ntimezone = \"UTC\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var raw syncBuffer
	c, _, s, stderr := pipedSession(t, e, &raw, "--config", cfg, "mcp")
	res := callTool(t, s, "query_logs", `{"source":"app","start":"2026-11-28T13:00:00Z","end":"2026-11-28T15:00:00Z"}`)
	obs := string(fixture.JSON(t, res.StructuredContent))
	if res.IsError || !strings.Contains(obs, "boom") || !strings.Contains(obs, "jsonrpc") {
		t.Fatalf("query_logs: isError %v %s\n%s", res.IsError, obs, stderr)
	}
	if strings.Contains(obs, "\x1b") || strings.Contains(obs, "owned\a") {
		t.Errorf("the observation holds a terminal escape: %q", obs)
	}
	_ = s.Close()
	_ = c.Wait()
	sc := bufio.NewScanner(strings.NewReader(raw.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		n++
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not a JSON-RPC frame: %q", n, line)
			continue
		}
		if msg.Result == nil && msg.Error == nil || string(msg.ID) == "" {
			t.Errorf("stdout line %d is not a response to the client: %q", n, line)
		}
		if bytes.ContainsRune(line, 0x1b) {
			t.Errorf("stdout line %d holds a raw escape: %q", n, line)
		}
	}
	if n < 2 {
		t.Errorf("stdout held %d frames, want the initialize and the tool call answers", n)
	}
}

// nonLoopbackIP is an address of this machine that is not loopback, or
// 0.0.0.0 (every interface, also not loopback) when it has none.
func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
				return ipn.IP.String()
			}
		}
	}
	return "0.0.0.0"
}

// bearer adds the Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// forgeRequestID sends a Superbiz-Request-Id of its own on every request.
type forgeRequestID struct{ next http.RoundTripper }

func (f forgeRequestID) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Superbiz-Request-Id", "forged")
	return f.next.RoundTrip(r)
}

// httpServer starts `superbiz ARGS…` (ARGS include mcp --http) under e,
// killed when the test ends, and returns the URL it says it serves on and
// its stderr.
func httpServer(t *testing.T, e *env, args ...string) (string, *syncBuffer) {
	t.Helper()
	p := httpProcess(t, e, args...)
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.wait() })
	return p.url, p.stderr
}

// Streamable HTTP on a non-loopback bind: refused without --token-env; with
// it, a request without the bearer token gets 401, and the SDK client with
// it lists the tools and calls one, even when it sends its own
// Superbiz-Request-Id.
func TestMCPStreamableHTTPToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	ip := nonLoopbackIP()
	r := e.run(t, "--demo", "mcp", "--http", net.JoinHostPort(ip, "0"))
	if r.code != 2 || !strings.Contains(r.stderr, "--token-env") {
		t.Fatalf("a non-loopback bind without --token-env: want exit 2 naming --token-env\n%s", r)
	}
	const token = "s3cret-mcp-token"
	e.vars["SUPERBIZ_MCP_TOKEN"] = token
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, _ := httpServer(t, e, "--demo", "mcp", "--http", net.JoinHostPort(ip, "0"), "--token-env", "SUPERBIZ_MCP_TOKEN")
	if ip != "0.0.0.0" && !strings.Contains(url, ip) {
		t.Errorf("listening on %s, want %s", url, ip)
	}
	if ip == "0.0.0.0" {
		url = strings.Replace(url, "0.0.0.0", "127.0.0.1", 1)
	}
	for _, auth := range []string{"", "Bearer wrong", "Basic " + token} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST without the token: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: HTTP %d, want 401", auth, resp.StatusCode)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "superbiz-e2e", Version: "1"}, nil)
	// A client's own Superbiz-Request-Id (a header the server sets to tie a
	// call to its request) is replaced, so the call is served, not ended as
	// if its request were gone.
	forged := forgeRequestID{http.DefaultTransport}
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, forged}}}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer s.Close()
	lt, err := s.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) < 5 {
		t.Fatalf("list tools over HTTP: %v %+v", err, lt)
	}
	res := callTool(t, s, "query_logs", inPaymentErrors)
	var obs struct {
		EvidenceStatus string `json:"evidence_status"`
	}
	structured(t, res, &obs)
	if res.IsError || obs.EvidenceStatus != found {
		t.Errorf("query_logs over HTTP: isError %v %+v", res.IsError, obs)
	}
}

// Calls are bounded: with --max-calls 1 a call waits while a diagnose holds
// the one slot, and is served once that diagnose is cancelled.
func TestMCPBoundedCalls(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	stallSecondRound(srv)
	e := newEnv(t, srv.URL())
	s, stderr := mcpSession(t, e, nil, "--demo", "mcp", "--max-calls", "1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	diagCtx, cancelDiag := context.WithCancel(ctx)
	defer cancelDiag()
	go func() {
		_, _ = s.CallTool(diagCtx, &mcp.CallToolParams{Name: "diagnose", Arguments: map[string]any{"query": queryPayment}})
	}()
	awaitChats(ctx, t, srv, 2, stderr)
	listed := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "runs_list", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("runs_list: %v", err)
		}
		listed <- res
	}()
	select {
	case <-listed:
		t.Fatal("runs_list was served while the diagnose held the one call slot")
	case <-time.After(time.Second):
	}
	cancelDiag()
	select {
	case res := <-listed:
		if res == nil || res.IsError {
			t.Errorf("runs_list after the slot was freed: %+v", res)
		}
	case <-ctx.Done():
		t.Fatalf("runs_list was never served after the diagnose was cancelled\n%s", stderr)
	}
}

// Every evidence-tool call over MCP is audited: query_logs is one stored
// TOOL_CALL run (SUCCESS, COMPLETED) whose one invocation holds the
// canonical input, the observation as the client got it, the evidence
// status and the duration; a refused input is a FAILED run with its code.
// `superbiz runs -o json` lists both under one session, and replay refuses
// them.
func TestMCPToolCallsAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	s, stderr := mcpSession(t, e, nil, "--demo", "mcp")
	ok := callTool(t, s, "query_logs", inPaymentErrors)
	var obs struct {
		EvidenceStatus string `json:"evidence_status"`
	}
	structured(t, ok, &obs)
	if ok.IsError || obs.EvidenceStatus != found {
		t.Fatalf("query_logs: isError %v %+v\n%s", ok.IsError, obs, stderr)
	}
	bad := callTool(t, s, "query_logs", `{"service":"payment-service","since":"forever"}`)
	if !bad.IsError || !strings.Contains(resultText(bad), "INVALID_INPUT") {
		t.Fatalf("a bad query_logs input: isError %v %q", bad.IsError, resultText(bad))
	}
	_ = s.Close()

	r := e.run(t, "runs", "-o", "json")
	if r.code != 0 {
		t.Fatalf("runs -o json:\n%s", r)
	}
	var runs []struct {
		RunID          string  `json:"run_id"`
		SessionID      string  `json:"session_id"`
		Query          string  `json:"query"`
		Intent         string  `json:"intent"`
		Status         string  `json:"status"`
		Lifecycle      string  `json:"lifecycle"`
		StopReason     string  `json:"stop_reason"`
		ReleaseOutcome string  `json:"release_outcome"`
		ErrorCode      *string `json:"error_code"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil {
		t.Fatalf("runs -o json: %v\n%s", err, r.stdout)
	}
	if len(runs) != 2 {
		t.Fatalf("runs -o json lists %d runs, want the two tool calls:\n%s", len(runs), r.stdout)
	}
	failed, served := runs[0], runs[1] // newest first
	if served.Intent != "TOOL_CALL" || served.Status != "SUCCESS" || served.Lifecycle != "COMPLETED" || served.ReleaseOutcome != "" ||
		!strings.HasPrefix(served.Query, "query_logs ") || !strings.Contains(served.Query, "payment-service") {
		t.Errorf("the served call's run: %+v", served)
	}
	if failed.Intent != "TOOL_CALL" || failed.Status != "FAILED" || failed.Lifecycle != "FAILED" || failed.StopReason != "INPUT_REJECTED" ||
		failed.ErrorCode == nil || *failed.ErrorCode != "INVALID_INPUT" {
		t.Errorf("the refused call's run: %+v (error_code %v)", failed, failed.ErrorCode)
	}
	if served.SessionID == "" || served.SessionID != failed.SessionID {
		t.Errorf("the calls of one server are under sessions %q and %q, want one", served.SessionID, failed.SessionID)
	}

	show := e.run(t, "runs", "show", served.RunID, "-o", "json")
	var detail struct {
		Invocations []struct {
			Tool           string          `json:"tool"`
			Kind           string          `json:"kind"`
			Input          json.RawMessage `json:"input"`
			EvidenceStatus string          `json:"evidence_status"`
			Observation    json.RawMessage `json:"observation"`
			DurationMS     *int64          `json:"duration_ms"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &detail); show.code != 0 || err != nil {
		t.Fatalf("runs show %s: %v\n%s", served.RunID, err, show)
	}
	if len(detail.Invocations) != 1 {
		t.Fatalf("the served call's run holds %d invocations, want 1:\n%s", len(detail.Invocations), show.stdout)
	}
	inv := detail.Invocations[0]
	got := fixture.JSON(t, ok.StructuredContent)
	if inv.Tool != "query_logs" || inv.Kind != "EVIDENCE" || inv.EvidenceStatus != found || inv.DurationMS == nil ||
		!strings.Contains(string(inv.Input), `"payment-service"`) || !jsonEqual(t, inv.Observation, got) {
		t.Errorf("the audited invocation %+v\nobservation %s\nthe client got %s", inv, inv.Observation, got)
	}

	rp := e.run(t, "replay", served.RunID)
	if rp.code != 2 || !strings.Contains(rp.stderr, "direct tool call (TOOL_CALL), not a diagnosis") {
		t.Errorf("replay of a tool call: want exit 2 saying it is not a diagnosis\n%s", rp)
	}
}
