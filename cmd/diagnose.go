package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	wsp "github.com/superbiz/superbiz/internal/workspace"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// diagnoseOptions are what `superbiz diagnose` was given, the global
// flags included; the budget flags given are in Overrides.
type diagnoseOptions struct {
	globalOptions
	// Args are the positional arguments: none, QUERY or "-" (stdin).
	Args     []string
	Session  string
	Continue bool
	Alert    string
	// FromAlert says --alert was given.
	FromAlert bool
	// The budget flags, in Overrides when given.
	MaxModelCalls, MaxToolCalls, MaxTokens int
	Timeout                                time.Duration
}

// newDiagnoseCmd is `superbiz diagnose`; runF replaces runDiagnose (tests),
// nil runs it.
func (a *app) newDiagnoseCmd(runF func(context.Context, *diagnoseOptions) error) *cobra.Command {
	f := &diagnoseOptions{}
	c := &cobra.Command{
		Use:   "diagnose [QUERY|-]",
		Short: "Diagnose a production problem from evidence (one DIAGNOSIS run)",
		Long: `diagnose runs the single diagnosis agent once on QUERY (or on stdin when QUERY
is "-" or absent and stdin is not a terminal), releases its answer through the
guards and stores the run. Exit codes: 0 released, 3 no conclusion (fallback),
1 failed, 2 usage or rejected input, 4 model unreachable or failing, 130
cancelled (143 on SIGTERM, 129 on SIGHUP).`,
		Example: `  superbiz diagnose --demo
  superbiz diagnose "order-service payment timeouts since 14:00, many 504s"
  echo "redis timeouts on user-service" | superbiz diagnose -o json
  superbiz diagnose --continue "is it still happening?"
  superbiz diagnose --alert HighLatency`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("diagnose takes one QUERY (quote it), got %d arguments", len(args))
			}
			if len(args) == 1 && cmd.Flags().Changed("alert") {
				return usageErrorf("--alert and a QUERY are exclusive: the alert is the query")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ov := config.Overrides{}
			changed := cmd.Flags().Changed
			if changed("max-model-calls") {
				ov.MaxModelCalls = &f.MaxModelCalls
			}
			if changed("max-tool-calls") {
				ov.MaxToolCalls = &f.MaxToolCalls
			}
			if changed("max-tokens") {
				ov.MaxTokens = &f.MaxTokens
			}
			if changed("timeout") {
				ov.Timeout = &f.Timeout
			}
			f.globalOptions, f.Args, f.FromAlert = a.flags.options(cmd).overriding(ov), args, changed("alert")
			return runWith(cmd.Context(), f, runF, a.runDiagnose)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.Session, "session", "", "continue this session (its last released diagnosis becomes the previous turn)")
	fl.BoolVar(&f.Continue, "continue", false, "continue the most recent session")
	c.MarkFlagsMutuallyExclusive("session", "continue")
	def := config.Defaults().Budget
	fl.IntVar(&f.MaxModelCalls, "max-model-calls", 0, fmt.Sprintf("model call budget (default from config: %d)", def.MaxModelCalls))
	fl.IntVar(&f.MaxToolCalls, "max-tool-calls", 0, fmt.Sprintf("tool call budget (default from config: %d)", def.MaxToolCalls))
	fl.IntVar(&f.MaxTokens, "max-tokens", 0, fmt.Sprintf("token budget (default from config: %d)", def.MaxTokens))
	fl.DurationVar(&f.Timeout, "timeout", 0, "deadline of the run (default from config: "+config.FormatDuration(def.Deadline)+")")
	fl.StringVar(&f.Alert, "alert", "", "start from this firing alert of [alerts] url: an alert name (the newest of that name) or a fingerprint")
	return c
}

// maxStdinQuery bounds what is read of a query piped on stdin; anything
// longer is refused (limits.query is far smaller anyway).
const maxStdinQuery = 1 << 20

// errStdinTooLarge marks a query on stdin longer than maxStdinQuery.
var errStdinTooLarge = fmt.Errorf("the query on stdin has more than %d bytes (1 MiB), the most that is read", maxStdinQuery)

// readQuery takes the query from the argument or from stdin; a query on
// stdin over maxStdinQuery is errStdinTooLarge, never silently cut; with
// --demo (isDemo) no query is the demo's.
func (a *app) readQuery(args []string, isDemo bool) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	if len(args) == 0 && a.io.InTTY {
		if isDemo {
			return demo.Query, nil
		}
		return "", usageErrorf("diagnose needs a QUERY (an argument, or text on stdin)")
	}
	b, err := io.ReadAll(io.LimitReader(a.io.In, maxStdinQuery+1))
	if err != nil {
		return "", fmt.Errorf("read the query from stdin: %w", err)
	}
	if len(b) > maxStdinQuery {
		return "", errStdinTooLarge
	}
	q := strings.TrimSpace(string(b))
	if q == "" && len(args) == 0 && isDemo {
		return demo.Query, nil
	}
	return q, nil
}

// checkStdinSize refuses a query stdin held more of than is read, before
// any run is stored, naming the real limit; a query that was read whole is
// checked against limits.query by the agent, with its real size.
func checkStdinSize(readErr error, limit int) error {
	if errors.Is(readErr, errStdinTooLarge) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("input rejected before any model call: %w; the limit is %d bytes (limits.query)", readErr, limit)}
	}
	return nil
}

// noteFreshSession says on stderr that --continue found no session to
// continue, so a new one is started instead of silently.
func (a *app) noteFreshSession(ctx context.Context, w *workspace, cont bool) error {
	if !cont {
		return nil
	}
	_, ok, err := w.Store.LatestSessionID(ctx)
	if err != nil {
		return err
	}
	if !ok {
		_ = a.io.ErrOut.Printf("superbiz: --continue: the run store %s holds no session yet; starting a new one\n", w.Config.DBPath)
	}
	return nil
}

// runDiagnose runs one diagnosis and prints its answer.
func (a *app) runDiagnose(ctx context.Context, f *diagnoseOptions) error {
	fromAlert := f.FromAlert
	var query string
	var readErr error
	if !fromAlert {
		query, readErr = a.readQuery(f.Args, f.Demo)
	}
	if readErr != nil && !errors.Is(readErr, errStdinTooLarge) {
		return readErr
	}
	if !fromAlert && readErr == nil && strings.TrimSpace(query) == "" {
		return &ExitError{Code: ExitUsage, Err: errors.New("the query is empty: say what is wrong, e.g. \"payment timeouts on order-service since 14:00\"")}
	}
	w, err := a.openWorkspaceOf(ctx, f.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	cfg := w.Config
	if err := checkStdinSize(readErr, cfg.Limits.Query); err != nil {
		return err
	}
	// The full-screen view only when stdout is a terminal too: with the
	// report redirected (> report.md, | jq) stderr gets one end line.
	useTUI := a.io.ErrTTY && a.io.OutTTY && !f.NoTUI && a.terminalWidth() >= tui.NarrowWidth
	prep, err := w.PrepareDiagnosis(ctx, wsp.Diagnosis{Query: query, Alert: f.Alert, FromAlert: fromAlert, Pace: a.demoPace(useTUI, f.Output)})
	if err != nil {
		return err
	}
	d, query, note := prep.Deps, prep.Query, prep.Note
	session := f.Session
	if session != "" {
		if session, err = runview.ResolveSession(ctx, w.Store, session, true); err != nil {
			return err
		}
	}
	if err := a.noteFreshSession(ctx, w, f.Continue); err != nil {
		return storeFailure(cfg.DBPath, err)
	}
	req := usecase.DiagnoseRequest{Query: query, SessionID: session, Continue: f.Continue}

	var out usecase.Output
	if useTUI {
		out, err = a.diagnoseTUI(ctx, d, req, note)
	} else {
		printer := &tui.LinePrinter{W: a.io.ErrOut, Brief: a.io.ErrTTY && !a.io.OutTTY && !f.NoTUI}
		d.Events = printer
		if note != "" && f.Output == outputJSON {
			_ = a.io.ErrOut.Printf("%s\n", note)
		}
		out, err = d.Diagnose(ctx, req)
	}
	if err != nil {
		return storeFailure(cfg.DBPath, err)
	}
	if err := a.printOutput(out, note, useTUI, f.Output); err != nil {
		return err
	}
	err = runExit(out, cfg)
	var xe *ExitError
	if errors.As(err, &xe) && xe.Code == ExitUnavailable && xe.Err != nil {
		// A newcomer without a model server can still see a diagnosis.
		hint := demoHint
		if f.Demo {
			hint = demoQueryHint
		}
		xe.Err = fmt.Errorf("%w\n%s", xe.Err, hint)
	}
	return err
}

// demoHint is said under a diagnosis the model server could not serve.
const demoHint = "hint: `superbiz diagnose --demo` shows a whole diagnosis with no model at all (a scripted transcript over built-in data)"

// demoQueryHint is said under a --demo diagnosis of another question than
// the demo's own that no model could serve: only that one is scripted.
const demoQueryHint = "hint: with no model, --demo plays a scripted transcript of its own question only: run `superbiz diagnose --demo` with no QUERY"

// demoPace is how long each scripted demo round waits: demo.Pace when a
// person watches the full-screen view on a terminal stdout, so the live
// budget panel can be seen; 0 when piped, with -o json or --no-tui.
func (a *app) demoPace(useTUI bool, output outputFormat) time.Duration {
	if useTUI && a.io.OutTTY && output != outputJSON {
		return demo.Pace
	}
	return 0
}

// printOutput writes the answer to stdout: one JSON object, the Markdown
// (-o markdown) or text for a person (-o text, docs/SPEC.md#output).
// After the TUI drew the report on a terminal stdout, it is not repeated.
func (a *app) printOutput(out usecase.Output, note string, tuiDrew bool, output outputFormat) error {
	if output == outputJSON {
		return writeJSON(a.io.Out, out)
	}
	if tuiDrew && a.io.OutTTY {
		return nil
	}
	md := strings.TrimRight(out.Answer, "\n") + "\n"
	if note != "" {
		md = "_" + note + "_\n\n" + md
	}
	var b strings.Builder
	if output != outputText {
		b.WriteString(md)
		if out.Timeline != nil {
			// the incident timeline the diagnosis used, for the channel too
			b.WriteString("\n" + timeline.PublishedMarkdown(*out.Timeline))
		}
	} else {
		// Text is for a person: the Markdown rendered, in colour on a colour
		// terminal, else plain (no escape sequence, no Markdown marks, the
		// note on its own unwrapped first line); -o markdown keeps the
		// Markdown itself.
		style := tui.PlainStyle
		if a.io.Color && a.io.OutTTY {
			style = tui.MarkdownStyle(true, a.io.DarkBackground())
		} else if note != "" {
			fmt.Fprintf(&b, "%s\n\n", note)
			md = out.Answer
		}
		r, err := tui.RenderMarkdown(md, a.outputWidth(), style)
		if err != nil {
			return fmt.Errorf("render the answer as text: %w", err)
		}
		b.WriteString(r)
		b.WriteString("\n")
		if out.Timeline != nil {
			// the incident timeline the diagnosis used (the live screen's panel)
			b.WriteString("\n" + timelineText(*out.Timeline, false))
		}
		fmt.Fprintf(&b, "\n%s · run %s · session %s · %d model calls, %d tool calls, %d tokens, %s\n",
			outcomeWord(out), out.RunID, out.SessionID, out.Usage.ModelCalls, out.Usage.ToolCalls,
			out.Usage.PromptTokens+out.Usage.CompletionTokens, (time.Duration(out.Usage.DurationMS) * time.Millisecond).String())
	}
	err := printPage(a.io.Out, b.String())
	return err
}

// outcomeWord names a run's end the way the terminal UI's end line and the
// [done] progress line do: the release outcome, then the stop reason
// unless the run simply succeeded or the reason repeats the outcome
// ("FALLBACK · TOOL_BUDGET_EXHAUSTED", "CANCELLED").
func outcomeWord(out usecase.Output) string {
	if out.StopReason != "" && out.ReleaseOutcome != runrecord.OutcomeSuccess && string(out.StopReason) != string(out.ReleaseOutcome) {
		return string(out.ReleaseOutcome) + " · " + string(out.StopReason)
	}
	return string(out.ReleaseOutcome)
}

// runExit is the exit of a finished run, with the message a person can
// act on (workspace.RunVerdict).
func runExit(out usecase.Output, cfg *config.Config) error { return wsp.RunVerdict(out, cfg) }

// outputWidth is stdout's width for rendering, 80 when unknown.
func (a *app) outputWidth() int {
	if w := a.io.OutColumns(); w > 0 {
		return w
	}
	return 80
}

// terminalWidth is stderr's width, 80 when unknown.
func (a *app) terminalWidth() int {
	if w := a.io.ErrColumns(); w > 0 {
		return w
	}
	return 80
}

// diagnoseTUI runs the diagnosis under the live terminal UI on stderr.
func (a *app) diagnoseTUI(ctx context.Context, d *usecase.Deps, req usecase.DiagnoseRequest, note string) (usecase.Output, error) {
	var mu sync.Mutex
	var cancelRun func()
	req.OnStart = func(_, _ string, cancel func()) {
		mu.Lock()
		cancelRun = cancel
		mu.Unlock()
	}
	view := tui.NewDiagnose(tui.DiagnoseOptions{
		Query: egress.Mask(req.Query).Shown().String(), Budget: d.Budget,
		// The view asks the terminal for its background when it starts.
		MarkdownStyle: tui.MarkdownStyle(a.io.Color, a.io.DarkBackground()),
		ModelWait:     demoOnly(d.ModelName == demo.TranscriptNote, demo.PlayingNote),
		OnCancel: func() {
			mu.Lock()
			defer mu.Unlock()
			if cancelRun != nil {
				cancelRun()
			}
		},
	})
	// Stop signals are ours alone (ctx): they cancel the run, whose report
	// then ends the screen, instead of tearing the screen down first.
	opts := []tea.ProgramOption{tea.WithOutput(a.io.ErrOut.Screen()), tea.WithContext(context.WithoutCancel(ctx)), tea.WithoutSignalHandler()}
	if a.io.InTTY {
		opts = append(opts, tea.WithInput(a.io.In))
	} else {
		opts = append(opts, tea.WithInput(nil))
	}
	p := tea.NewProgram(view, opts...)
	sink := tui.NewEventSink(p)
	d.Events = sink

	type result struct {
		out usecase.Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := d.Diagnose(ctx, req)
		if err == nil {
			md := out.Answer
			if note != "" {
				md = "_" + note + "_\n\n" + md
			}
			sink.Post(tui.ReportMsg{Markdown: md, ExitCode: outcomeExit(out), Outcome: out.ReleaseOutcome, StopReason: out.StopReason})
		} else {
			p.Quit()
		}
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = sink.Close(closeCtx)
		cancel()
		done <- result{out, err}
	}()
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		// The engine keeps going without a screen; wait for its result.
		_ = a.io.ErrOut.Printf("superbiz: terminal UI stopped: %v\n", err)
	}
	r := <-done
	return r.out, r.err
}
