package cmd

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// mcpFlags are the flags of `superbiz mcp`.
type mcpFlags struct {
	http        string
	tokenEnv    string
	maxCalls    int
	maxDiagnose int
}

// mcpShutdown bounds how long a stopping HTTP server waits for its requests.
const mcpShutdown = 10 * time.Second

func (a *app) newMCPCmd() *cobra.Command {
	var f mcpFlags
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the guarded diagnosis and the evidence tools to an MCP client (stdio, or streamable HTTP)",
		Long: `mcp serves superbiz over the Model Context Protocol: the diagnose tool (a
full run through the same path and guards as "superbiz diagnose"), the evidence
tools under the agent's names (lookup_knowledge, query_logs, query_mysql,
query_metrics, read_skill; the same bounds, redaction and error codes as "tools
call"), list_alerts, runs_list and run_show; the runbooks and playbooks as
resources; the prompt investigate_incident. It speaks stdio by default (stdout
carries only protocol frames, logs go to stderr); --http ADDR serves streamable
HTTP instead. A bind that is not loopback requires --token-env VAR: every
request must carry "Authorization: Bearer <the value of $VAR>" or gets 401.`,
		Example: `  claude mcp add superbiz -- superbiz mcp
  superbiz mcp --demo
  superbiz mcp --http 127.0.0.1:8765
  SUPERBIZ_MCP_TOKEN=… superbiz mcp --http 0.0.0.0:8765 --token-env SUPERBIZ_MCP_TOKEN`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runMCP(cmd, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	fl.StringVar(&f.tokenEnv, "token-env", "", "require this environment variable's value as the bearer token of every HTTP request (required off loopback)")
	fl.IntVar(&f.maxCalls, "max-calls", 4, "at most this many tool calls at once; more wait")
	fl.IntVar(&f.maxDiagnose, "max-diagnose", 1, "at most this many diagnoses at once (they share one model); more wait")
	return c
}

// mcpToken checks the HTTP flags and returns the bearer token to require,
// "" for none (stdio, or loopback without --token-env).
func (a *app) mcpToken(f mcpFlags) (string, error) {
	if f.http == "" {
		if f.tokenEnv != "" {
			return "", usageErrorf("--token-env applies to --http only")
		}
		return "", nil
	}
	host, _, err := net.SplitHostPort(f.http)
	if err != nil {
		return "", usageErrorf("--http %q: want host:port (e.g. 127.0.0.1:8765): %v", f.http, err)
	}
	if f.tokenEnv == "" {
		if !isLoopback(host) {
			return "", usageErrorf("--http %s is not a loopback address: give --token-env VAR, the environment variable holding the bearer token every request must carry", f.http)
		}
		return "", nil
	}
	token := a.getenv(f.tokenEnv)
	if token == "" {
		return "", configError(fmt.Errorf("--token-env %s: the variable is unset or empty", f.tokenEnv))
	}
	return token, nil
}

// isLoopback says whether host (of a listen address) binds loopback only;
// an empty host binds every interface.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (a *app) runMCP(cmd *cobra.Command, f mcpFlags) error {
	if f.maxCalls < 1 || f.maxDiagnose < 1 {
		return usageErrorf("--max-calls and --max-diagnose must be at least 1")
	}
	token, err := a.mcpToken(f)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	w, err := a.openWorkspace(cmd, config.Overrides{})
	if err != nil {
		return err
	}
	defer w.Close()
	if w.index != nil {
		// The runbook resources are the indexed files: index what changed.
		if _, err := w.index.Sync(ctx, nil); err != nil {
			fmt.Fprintf(a.io.ErrOut, "superbiz: mcp: the runbook index could not be synced, resources list what it held: %s\n", redact.Clean(err.Error()))
		}
	}
	logger := slog.New(slog.NewTextHandler(a.io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := mcpserver.New(&mcpService{a: a, w: w}, mcpserver.Options{
		Name: "superbiz", Version: mcpVersion(), MaxCalls: f.maxCalls, MaxDiagnose: f.maxDiagnose,
		Alerts: w.cfg.Alerts.URL != "", Logger: logger,
	})
	if err != nil {
		return err
	}
	if f.http == "" {
		out := a.io.Out
		// Everything but the protocol goes to stderr from here on.
		a.io.Out = a.io.ErrOut
		return srv.RunIO(ctx, a.io.In, out)
	}
	return a.serveMCPHTTP(ctx, srv, f.http, token)
}

// serveMCPHTTP serves streamable HTTP on addr until ctx ends; the address
// actually bound (a port 0 resolved) is said on stderr.
func (a *app) serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--http %s: %w", addr, err)}
	}
	h := srv.Handler()
	if token != "" {
		h = requireBearer(token, h)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.io.ErrOut, "superbiz: MCP streamable HTTP on http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), mcpShutdown)
	defer cancel()
	// Cancel the calls in flight first: a diagnosis is stored CANCELLED.
	srv.Stop()
	if serr := hs.Shutdown(shut); serr != nil && err == nil {
		err = serr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// requireBearer answers 401 to any request without "Authorization: Bearer
// <token>" (compared in constant time).
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			rw.Header().Set("WWW-Authenticate", `Bearer realm="superbiz"`)
			http.Error(rw, "401 unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// mcpService implements mcpserver.Service over one open workspace, through
// the paths the commands use: callTool for the tools, prepareDiagnosis and
// Diagnose for diagnose, the runs JSON views for the stored runs.
type mcpService struct {
	a *app
	w *workspace
	// mu guards session: the one session this server stores its clients'
	// direct tool calls under, created at the first one.
	mu      sync.Mutex
	session string
}

// Tools are the evidence tools with their business input schemas (the
// agent's envelope left out), and read_skill when playbooks are loaded.
func (s *mcpService) Tools() []mcpserver.Tool {
	var out []mcpserver.Tool
	for _, name := range s.w.registry.Names() {
		ad, _ := s.w.registry.Adapter(name)
		d := ad.Definition()
		out = append(out, mcpserver.Tool{Name: d.Name, Description: d.Description, Input: d.Parameters})
	}
	for _, d := range s.w.registry.Definitions() {
		if d.Name == harness.ReadSkillTool {
			out = append(out, mcpserver.Tool{Name: d.Name, Description: d.Description, Input: d.Parameters})
		}
	}
	return out
}

// CallTool runs the tool exactly as `tools call` does, and audits it: each
// call is a stored TOOL_CALL run, under one session per server. A rejected
// input or a failure is an error result with the message `tools call`
// prints.
func (s *mcpService) CallTool(ctx context.Context, name string, input json.RawMessage) (mcpserver.Result, error) {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	session, err := s.toolSession(ctx)
	if err != nil {
		return mcpserver.Result{}, err
	}
	res, err := s.w.callTool(ctx, name, input, &toolAudit{SessionID: session})
	if err != nil {
		return mcpserver.Result{IsError: true, Text: redact.Clean(err.Error())}, nil
	}
	r := mcpserver.Result{Structured: res.Observation}
	if xerr := res.exit(ctx); xerr != nil {
		r.IsError, r.Text = true, redact.Clean(xerr.Error())
	}
	return r, nil
}

// toolSession is the session of this server's audited tool calls, created
// at the first one.
func (s *mcpService) toolSession(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == "" {
		id := s.w.store.NewID("s_")
		if err := s.w.store.CreateSession(ctx, id); err != nil {
			return "", storeFailure(s.w.cfg.DBPath, fmt.Errorf("create the session of the tool calls: %w", err))
		}
		s.session = id
	}
	return s.session, nil
}

// Diagnose runs one diagnosis through prepareDiagnosis and the use case,
// as `superbiz diagnose -o json` does, sending each budget snapshot as
// progress and the run's events as lines on stderr.
func (s *mcpService) Diagnose(ctx context.Context, in mcpserver.DiagnoseInput, progress func(mcpserver.Progress)) (mcpserver.Result, error) {
	d, query, note, err := s.a.prepareDiagnosis(ctx, s.w, in.Query, in.Alert, in.Alert != "", 0)
	if err != nil {
		return mcpserver.Result{IsError: true, Text: redact.Clean(err.Error())}, nil
	}
	if note != "" {
		fmt.Fprintf(s.a.io.ErrOut, "superbiz: %s\n", note)
	}
	d.Events = harness.Sinks{&tui.LinePrinter{W: s.a.io.ErrOut}, progressSink(progress)}
	out, err := d.Diagnose(ctx, usecase.DiagnoseRequest{Query: query, SessionID: in.Session})
	if err != nil {
		return mcpserver.Result{}, storeFailure(s.w.cfg.DBPath, err)
	}
	body, err := json.Marshal(out)
	if err != nil {
		return mcpserver.Result{}, fmt.Errorf("encode the diagnosis: %w", err)
	}
	r := mcpserver.Result{Structured: body, Text: out.Answer}
	if xerr := runExit(out, s.w.cfg); xerr != nil && outcomeExit(out) != ExitFallback {
		r.IsError = true
		r.Text = redact.Clean(xerr.Error()) + "\n\n" + out.Answer
	}
	return r, nil
}

// progressSink turns the run's budget snapshots into progress: the model
// and tool calls used of their maxima, and the phase (the last model
// round's purpose or tool called).
func progressSink(progress func(mcpserver.Progress)) harness.Sink {
	phase := "starting"
	return harness.SinkFunc(func(ev harness.Event) {
		switch e := ev.(type) {
		case harness.ModelRoundStarted:
			phase = "model " + string(e.Purpose)
		case harness.ToolCallStarted:
			phase = "tool " + e.Tool
		case harness.BudgetChanged:
			progress(mcpserver.Progress{
				Used: e.Usage.ModelCalls + e.Usage.ToolCalls, Max: e.Budget.MaxModelCalls + e.Budget.MaxToolCalls,
				Message: fmt.Sprintf("%s: %d/%d model calls, %d/%d tool calls", phase, e.Usage.ModelCalls, e.Budget.MaxModelCalls, e.Usage.ToolCalls, e.Budget.MaxToolCalls),
			})
		}
	})
}

// ListAlerts is `superbiz alerts -o json` as {"alerts": […]}.
func (s *mcpService) ListAlerts(ctx context.Context) (mcpserver.Result, error) {
	client, err := s.a.alertsClient(s.w.cfg)
	if err != nil {
		return mcpserver.Result{IsError: true, Text: redact.Clean(err.Error())}, nil
	}
	as, skipped, err := client.Firing(ctx)
	if err != nil {
		return mcpserver.Result{IsError: true, Text: redact.Clean(alertsFailure(err).Error())}, nil
	}
	if len(skipped) > 0 {
		return structured(map[string]any{"alerts": as, "skipped": skipped})
	}
	return structured(map[string]any{"alerts": as})
}

// ListRuns is `superbiz runs -o json` as {"runs": […]}.
func (s *mcpService) ListRuns(ctx context.Context, in mcpserver.RunsListInput) (mcpserver.Result, error) {
	store := s.w.store
	if in.Session != "" {
		if _, err := store.GetSession(ctx, in.Session); err != nil {
			if errors.Is(err, runstore.ErrNotFound) {
				return mcpserver.Result{IsError: true, Text: fmt.Sprintf("no session %s in %s (runs_list without session lists the sessions of recent runs)", in.Session, store.Path())}, nil
			}
			return mcpserver.Result{}, err
		}
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: in.Session, Limit: in.Limit})
	if err != nil {
		return mcpserver.Result{}, err
	}
	list := make([]runSummaryJSON, len(runs))
	for i, r := range runs {
		list[i] = summaryJSON(r)
	}
	return structured(map[string]any{"runs": list})
}

// ShowRun is `superbiz runs show RUN_ID -o json`.
func (s *mcpService) ShowRun(ctx context.Context, in mcpserver.RunShowInput) (mcpserver.Result, error) {
	d, err := getRun(ctx, s.w.store, in.RunID)
	if err != nil {
		return mcpserver.Result{IsError: true, Text: redact.Clean(err.Error())}, nil
	}
	return structured(detailJSON(d))
}

// Runbooks lists the indexed runbooks, none without [knowledge] paths.
func (s *mcpService) Runbooks(ctx context.Context) ([]mcpserver.Document, error) {
	if s.w.index == nil {
		return nil, nil
	}
	books, err := s.w.index.Runbooks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]mcpserver.Document, 0, len(books))
	for _, b := range books {
		out = append(out, mcpserver.Document{Name: b.Path, Title: redact.Clean(b.Title)})
	}
	return out, nil
}

// Runbook is one indexed runbook's text, masked like every observation.
func (s *mcpService) Runbook(ctx context.Context, path string) (mcpserver.Document, bool, error) {
	if s.w.index == nil {
		return mcpserver.Document{}, false, nil
	}
	b, ok, err := s.w.index.ReadRunbook(ctx, path)
	if err != nil || !ok {
		return mcpserver.Document{}, ok, err
	}
	return mcpserver.Document{Name: b.Path, Title: redact.Clean(b.Title), Text: redact.Clean(b.Text)}, true, nil
}

// Skills are the loaded playbooks, masked.
func (s *mcpService) Skills() []mcpserver.Document {
	if s.w.playbooks == nil {
		return nil
	}
	var out []mcpserver.Document
	for _, p := range s.w.playbooks.List() {
		out = append(out, mcpserver.Document{Name: p.Name, Title: p.Name, Description: redact.Clean(p.Description), Text: redact.Clean(p.Body)})
	}
	return out
}

// structured is a successful result holding v as JSON.
func structured(v any) (mcpserver.Result, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return mcpserver.Result{}, fmt.Errorf("encode the result: %w", err)
	}
	return mcpserver.Result{Structured: body}, nil
}

// mcpVersion is the version the server declares: `superbiz version`'s.
func mcpVersion() string {
	bi, _ := debug.ReadBuildInfo() // nil when absent: resolveVersion falls back
	return resolveVersion(version, commit, date, bi).Version
}
