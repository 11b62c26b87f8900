package cmd

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/internal/mcpservice"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// mcpOptions are the flags of `superbiz mcp`, the global ones included.
type mcpOptions struct {
	globalOptions
	HTTP        string
	TokenEnv    string
	MaxCalls    int
	MaxDiagnose int
	// SessionTimeout closes an idle streamable HTTP session.
	SessionTimeout time.Duration
}

// mcpShutdown bounds how long a stopping HTTP server waits for its requests.
const mcpShutdown = 10 * time.Second

// evidenceToolNames lists the evidence tools every registered source can
// add, in registry order, and read_skill: mcp --help names them all, so a
// new source is named there by joining the registry.
func evidenceToolNames() string {
	var names []string
	for _, s := range registry.Sources() {
		if n := s.Tool(); n != "" {
			names = append(names, n)
		}
	}
	names = append(names, tools.ReadSkillTool)
	var b strings.Builder
	line := " "
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if len(line)+1+len(n) > 78 {
			b.WriteString(line + "\n")
			line = " "
		}
		line += " " + n
	}
	return b.String() + line
}

// newMCPCmd is `superbiz mcp`; runF replaces runMCP (tests), nil runs it.
func (a *app) newMCPCmd(runF func(context.Context, *mcpOptions) error) *cobra.Command {
	f := &mcpOptions{}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the guarded diagnosis and the evidence tools to an MCP client (stdio, or streamable HTTP)",
		Long: `mcp serves superbiz over the Model Context Protocol: the diagnose tool (a
full run through the same path and guards as "superbiz diagnose"); the
evidence tools under the agent's names, each offered when its source is
configured, with the same bounds, redaction and error codes as "tools call":

` + evidenceToolNames() + `

list_alerts, runs_list and run_show; the runbooks and playbooks as
resources; the prompt investigate_incident. It speaks stdio by default (stdout
carries only protocol frames, logs go to stderr); --http ADDR serves streamable
HTTP instead. A bind that is not loopback requires --token-env VAR: every
request must carry "Authorization: Bearer <the value of $VAR>" or gets 401.
A stop signal cancels the calls in flight (stored CANCELLED) and exits 130
(SIGINT) or 143 (SIGTERM).`,
		Example: `  claude mcp add superbiz -- superbiz mcp
  superbiz mcp --demo
  superbiz mcp --http 127.0.0.1:8765
  SUPERBIZ_MCP_TOKEN=… superbiz mcp --http 0.0.0.0:8765 --token-env SUPERBIZ_MCP_TOKEN`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.globalOptions = a.flags.options(cmd)
			return runWith(cmd.Context(), f, runF, a.runMCP)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.HTTP, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	fl.StringVar(&f.TokenEnv, "token-env", "", "require this environment variable's value as the bearer token of every HTTP request (required off loopback)")
	fl.IntVar(&f.MaxCalls, "max-calls", 4, "at most this many tool calls at once; more wait")
	fl.DurationVar(&f.SessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout, "with --http, close a session that sent no request for this long")
	fl.IntVar(&f.MaxDiagnose, "max-diagnose", 1, "at most this many diagnoses at once (they share one model); more wait")
	return c
}

// mcpToken checks the HTTP flags and returns the bearer token to require,
// "" for none (stdio, or loopback without --token-env).
func (a *app) mcpToken(f *mcpOptions) (string, error) {
	if f.HTTP == "" {
		if f.TokenEnv != "" {
			return "", usageErrorf("--token-env applies to --http only")
		}
		return "", nil
	}
	host, _, err := net.SplitHostPort(f.HTTP)
	if err != nil {
		return "", usageErrorf("--http %q: want host:port (e.g. 127.0.0.1:8765): %v", f.HTTP, err)
	}
	if f.TokenEnv == "" {
		if !isLoopback(host) {
			return "", usageErrorf("--http %s is not a loopback address: give --token-env VAR, the environment variable holding the bearer token every request must carry", f.HTTP)
		}
		return "", nil
	}
	token := a.getenv(f.TokenEnv)
	switch {
	case token == "":
		return "", configError(fmt.Errorf("--token-env %s: the variable is unset or empty", f.TokenEnv))
	case strings.TrimSpace(token) == "":
		// No client can send a blank bearer token: refuse it as an empty one.
		return "", configError(fmt.Errorf("--token-env %s: the variable holds only white space", f.TokenEnv))
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

func (a *app) runMCP(ctx context.Context, f *mcpOptions) error {
	if f.MaxCalls < 1 || f.MaxDiagnose < 1 {
		return usageErrorf("--max-calls and --max-diagnose must be at least 1")
	}
	if f.SessionTimeout <= 0 {
		return usageErrorf("--session-timeout must be positive, e.g. 30m")
	}
	token, err := a.mcpToken(f)
	if err != nil {
		return err
	}
	w, err := a.openWorkspaceOf(ctx, f.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	if w.Index != nil {
		// The runbook resources are the indexed files: index what changed.
		if _, err := w.Index.Sync(ctx, nil); err != nil {
			_ = a.io.ErrOut.Printf("superbiz: mcp: the runbook index could not be synced, resources list what it held: %s\n", egress.Error(err).Shown())
		}
	}
	logger := slog.New(slog.NewTextHandler(a.io.ErrOut.Stream(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := mcpserver.New(mcpservice.New(w, mcpservice.Options{Lines: &tui.LinePrinter{W: a.io.ErrOut}, Notes: a.io.ErrOut}), mcpserver.Options{
		Name: "superbiz", Version: mcpVersion(), MaxCalls: f.MaxCalls, MaxDiagnose: f.MaxDiagnose,
		Alerts: alertsource.Configured(w.Config), Logger: logger, SessionTimeout: f.SessionTimeout,
	})
	if err != nil {
		return err
	}
	if f.HTTP == "" {
		if a.io.InTTY {
			// Started by hand: stdin is a terminal, not a client's pipe.
			_ = a.io.ErrOut.Print(egress.Const("superbiz: mcp waits for an MCP client on stdin/stdout; have a client start `superbiz mcp` (e.g. `npx @modelcontextprotocol/inspector superbiz mcp`), or serve HTTP with --http 127.0.0.1:8080; Ctrl-C ends it\n"))
		}
		out := a.io.Out
		// Everything but the protocol goes to stderr from here on.
		a.io.Out = a.io.ErrOut
		err = srv.RunIO(ctx, a.io.In, out.Protocol())
	} else {
		err = a.serveMCPHTTP(ctx, srv, f.HTTP, token)
	}
	if ctx.Err() != nil {
		if srv.Stopped() == 0 {
			// Nothing was in flight: the server just ends.
			return &ExitError{Code: exitcode.Cancelled}
		}
		// A stop signal: the calls in flight were cancelled and stored.
		return cancelled("every call in flight")
	}
	return err
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
	_ = a.io.ErrOut.Printf("superbiz: MCP streamable HTTP on http://%s/\n", ln.Addr())
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

// mcpVersion is the version the server declares: `superbiz version`'s.
func mcpVersion() string {
	bi, _ := debug.ReadBuildInfo() // nil when absent: resolveVersion falls back
	return resolveVersion(version, commit, date, bi).Version
}
