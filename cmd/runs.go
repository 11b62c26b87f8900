package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	usecase "github.com/superbiz/superbiz/pkg/app"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/textclip"
)

// runsFlags are the flags of `superbiz runs` and `superbiz runs list`.
type runsFlags struct {
	session string
	limit   int
}

// queryColumnWidth bounds the QUERY column of the runs table so one run
// stays on one line of an ordinary terminal.
const queryColumnWidth = 60

func (a *app) newRunsCmd() *cobra.Command {
	var f runsFlags
	addFlags := func(c *cobra.Command) {
		c.Flags().StringVar(&f.session, "session", "", "only the runs of this session")
		c.Flags().IntVar(&f.limit, "limit", runstore.DefaultListLimit, "at most this many runs")
	}
	c := &cobra.Command{
		Use:   "runs [list]",
		Short: "List stored runs, newest first",
		Long: `runs lists the runs stored in the run store, newest first: status, release
outcome, stop reason, calls and duration. "runs show RUN_ID" prints one run in
full with its audit (tool invocations, model rounds, guard reviews).`,
		Example: `  superbiz runs
  superbiz runs --session s_01jd2k --limit 5
  superbiz runs -o json
  superbiz runs show r_01jd2k9x`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRunsList(cmd, f)
		},
	}
	addFlags(c)
	list := &cobra.Command{
		Use:   "list",
		Short: "List stored runs, newest first (the default)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRunsList(cmd, f)
		},
	}
	addFlags(list)
	show := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Print one run in full: answer, result, checks, tool invocations, model rounds",
		Long: `runs show prints one stored run: its identifiers, query, outcome, usage and
answer, the published result, the checks, every tool invocation in order (with
its Tool Call ID, and playbook reads as guidance steps), the model rounds and
the guard reviews. Guard reasons are local audit data and are never published.`,
		Args: exactArgs(1, "one RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runRunsShow(cmd, args[0])
		},
	}
	c.AddCommand(list, show)
	return c
}

// openStore resolves the configuration and opens only the run store, for
// reading: `runs` needs neither the model client nor the tools, must stay
// fast, and must work on a store it cannot write.
func (a *app) openStore(cmd *cobra.Command) (*runstore.Store, error) {
	cfg, err := a.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	// Read-only first: an archived copy or a read-only mount can be listed.
	// Only a missing file (none yet) or an older schema opens it writable.
	store, err := runstore.OpenReadOnly(cmd.Context(), cfg.DBPath)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, runstore.ErrSchemaBehind) {
		store, err = runstore.Open(cmd.Context(), cfg.DBPath)
	}
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("open the run store %s: %w", cfg.DBPath, err)}
	}
	return store, nil
}

func (a *app) runRunsList(cmd *cobra.Command, f runsFlags) (err error) {
	if f.limit < 1 {
		return usageErrorf("--limit must be at least 1, got %d", f.limit)
	}
	ctx := cmd.Context()
	store, err := a.openStore(cmd)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	if f.session != "" {
		if _, err := store.GetSession(ctx, f.session); err != nil {
			if errors.Is(err, runstore.ErrNotFound) {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("no session %s in %s (see `superbiz runs` for the sessions of recent runs)", f.session, store.Path())}
			}
			return err
		}
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: f.session, Limit: f.limit})
	if err != nil {
		return err
	}
	switch a.flags.output {
	case outputJSON:
		out := make([]runSummaryJSON, len(runs))
		for i, r := range runs {
			out[i] = summaryJSON(r)
		}
		return writeJSON(a.io.Out, out)
	case outputMarkdown:
		if len(runs) == 0 {
			_, err := io.WriteString(a.io.Out, noRunsLine(f.session)+"\n")
			return err
		}
		return writeMarkdownTable(a.io.Out, runsTable(runs))
	}
	if len(runs) == 0 {
		_, err := io.WriteString(a.io.Out, noRunsLine(f.session)+"\n")
		return err
	}
	return writeTextTable(a.io.Out, runsTable(runs))
}

// noRunsLine is what an empty listing says instead of an empty table.
func noRunsLine(session string) string {
	if session != "" {
		return "No runs yet in session " + session + "."
	}
	return "No runs yet: try `superbiz diagnose --demo`."
}

// table is a header and rows of already printable cells, rendered aligned
// for a terminal or as a Markdown table.
type table struct {
	header []string
	rows   [][]string
}

// runsTable is the listing of `runs` (docs/SPEC.md#superbiz-runs).
func runsTable(runs []runstore.RunSummary) table {
	t := table{header: []string{"RUN", "CREATED", "INTENT", "STATUS", "OUTCOME", "STOP", "CALLS", "DURATION", "QUERY"}}
	for _, r := range runs {
		t.rows = append(t.rows, []string{
			cell(r.ID),
			r.CreatedAt.Local().Format("2006-01-02 15:04"),
			orDash(cell(r.Intent)),
			orDash(cell(r.Status)),
			orDash(cell(r.ReleaseOutcome)),
			orDash(cell(r.StopReason)),
			fmt.Sprintf("%d/%d", r.Usage.ModelCalls, r.Usage.ToolCalls),
			runDuration(r),
			textclip.Width(cell(r.Query), queryColumnWidth),
		})
	}
	return t
}

// writeTextTable aligns a table with tabwriter.
func writeTextTable(w io.Writer, t table) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.header, "\t"))
	for _, row := range t.rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// writeMarkdownTable renders a table as GitHub-flavoured Markdown.
func writeMarkdownTable(w io.Writer, t table) error {
	var b strings.Builder
	md := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	md(t.header)
	sep := make([]string, len(t.header))
	for i := range sep {
		sep[i] = "---"
	}
	md(sep)
	for _, row := range t.rows {
		md(row)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// cell makes stored text printable on one line: control characters and
// escape sequences removed, secrets redacted, line breaks and tabs turned
// into spaces.
func cell(s string) string {
	s = shownText(s)
	return strings.Join(strings.Fields(s), " ")
}

// shownText is stored text as `runs` and `replay` show it: control
// characters stripped and secrets redacted. The store redacts what it
// writes; this covers runs recorded before it did.
func shownText(s string) string {
	return redact.String(redact.StripControl(s))
}

// shownJSON is a stored JSON document as `runs -o json` shows it, redacted
// like shownText (a damaged document is left to rawJSON).
func shownJSON(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return v
	}
	out, err := redact.JSON(v)
	if err != nil {
		return v
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// runDuration is a run's duration, "-" while it has not finished.
func runDuration(r runstore.RunSummary) string {
	if r.FinishedAt.IsZero() {
		return "-"
	}
	return durationMS(r.DurationMS)
}

// durationMS prints milliseconds the way people read durations.
func durationMS(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms < 0:
		return "-"
	case d < time.Second:
		return strconv.FormatInt(ms, 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}

// runSummaryJSON is one element of `runs -o json`: the stored summary with
// snake_case keys, RFC 3339 times and null for what a run does not have.
type runSummaryJSON struct {
	RunID          string              `json:"run_id"`
	SessionID      string              `json:"session_id"`
	CreatedAt      string              `json:"created_at"`
	FinishedAt     *string             `json:"finished_at"`
	Query          string              `json:"query"`
	Intent         string              `json:"intent"`
	Status         string              `json:"status"`
	ReleaseOutcome string              `json:"release_outcome"`
	StopReason     string              `json:"stop_reason"`
	Lifecycle      string              `json:"lifecycle"`
	Model          string              `json:"model"`
	Usage          usecase.OutputUsage `json:"usage"`
	ErrorCode      *string             `json:"error_code"`
	ReplayOf       *string             `json:"replay_of"`
}

func summaryJSON(r runstore.RunSummary) runSummaryJSON {
	s := runSummaryJSON{
		RunID: r.ID, SessionID: r.SessionID, CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano),
		Query: redact.String(r.Query), Intent: r.Intent, Status: r.Status, ReleaseOutcome: r.ReleaseOutcome,
		StopReason: r.StopReason, Lifecycle: r.Lifecycle, Model: r.Model,
		Usage: usecase.OutputUsage{
			ModelCalls: r.Usage.ModelCalls, ToolCalls: r.Usage.ToolCalls, PromptTokens: r.Usage.PromptTokens,
			CompletionTokens: r.Usage.CompletionTokens, Bytes: r.Usage.Bytes, DurationMS: r.DurationMS,
		},
		ErrorCode: nullable(r.ErrorCode), ReplayOf: nullable(r.ReplayOf),
	}
	if !r.FinishedAt.IsZero() {
		s.FinishedAt = nullable(r.FinishedAt.UTC().Format(time.RFC3339Nano))
	}
	return s
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// rawJSON passes stored JSON through, null when absent; a stored value that
// is not valid JSON (a damaged record) is shown as a string rather than
// breaking the whole document.
func rawJSON(v json.RawMessage, empty string) json.RawMessage {
	if len(strings.TrimSpace(string(v))) == 0 {
		return json.RawMessage(empty)
	}
	if !json.Valid(v) {
		b, err := json.Marshal(string(v))
		if err != nil {
			return json.RawMessage("null")
		}
		return b
	}
	return v
}

// runDetailJSON is `runs show -o json`: the summary plus the answer, the
// published result, the checks and the audit.
type runDetailJSON struct {
	runSummaryJSON
	Host         string            `json:"host"`
	Clock        *string           `json:"clock"`
	Budget       json.RawMessage   `json:"budget"`
	Answer       string            `json:"answer"`
	Result       json.RawMessage   `json:"result"`
	Checks       json.RawMessage   `json:"checks"`
	Error        *runErrorJSON     `json:"error"`
	Invocations  []invocationJSON  `json:"invocations"`
	ModelRounds  []modelRoundJSON  `json:"model_rounds"`
	GuardReviews []guardReviewJSON `json:"guard_reviews"`
}

// runErrorJSON is a failed run's stable code and message, as in diagnose.
type runErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// invocationJSON is one canonical tool invocation of the audit.
type invocationJSON struct {
	Seq            int             `json:"seq"`
	ToolCallID     string          `json:"tool_call_id"`
	Tool           string          `json:"tool"`
	Kind           string          `json:"kind"`
	Input          json.RawMessage `json:"input"`
	Summary        string          `json:"summary"`
	Status         string          `json:"status"`
	EvidenceStatus *string         `json:"evidence_status"`
	ErrorCode      *string         `json:"error_code"`
	Control        *string         `json:"control"`
	Observation    json.RawMessage `json:"observation"`
	StartedAt      string          `json:"started_at"`
	DurationMS     int64           `json:"duration_ms"`
}

// modelRoundJSON is one model round without its (large) request and response.
type modelRoundJSON struct {
	Seq              int     `json:"seq"`
	Purpose          string  `json:"purpose"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	DurationMS       int64   `json:"duration_ms"`
	ErrorKind        *string `json:"error_kind"`
	StartedAt        string  `json:"started_at"`
}

// guardReviewJSON is one release guard's verdict and its audit-only reasons.
type guardReviewJSON struct {
	Seq       int             `json:"seq"`
	Guard     string          `json:"guard"`
	Verdict   string          `json:"verdict"`
	Reasons   json.RawMessage `json:"reasons"`
	CreatedAt string          `json:"created_at"`
}

func detailJSON(d *runstore.RunDetail) runDetailJSON {
	out := runDetailJSON{
		runSummaryJSON: summaryJSON(d.RunSummary),
		Host:           d.Host,
		Budget:         rawJSON(d.Budget, "null"),
		Answer:         redact.String(d.Answer),
		Result:         rawJSON(shownJSON(d.PublishedResult), "null"),
		Checks:         rawJSON(shownJSON(d.Checks), "[]"),
		Invocations:    make([]invocationJSON, 0, len(d.Invocations)),
		ModelRounds:    make([]modelRoundJSON, 0, len(d.ModelRounds)),
		GuardReviews:   make([]guardReviewJSON, 0, len(d.GuardReviews)),
	}
	if !d.Clock.IsZero() {
		out.Clock = nullable(d.Clock.Format(time.RFC3339Nano))
	}
	if d.ErrorCode != "" || d.ErrorMessage != "" {
		out.Error = &runErrorJSON{Code: d.ErrorCode, Message: redact.String(d.ErrorMessage)}
	}
	for _, inv := range d.Invocations {
		out.Invocations = append(out.Invocations, invocationJSON{
			Seq: inv.Seq, ToolCallID: inv.ToolCallID, Tool: inv.Tool, Kind: inv.Kind,
			Input: rawJSON(shownJSON(inv.CanonicalInput), "null"), Summary: redact.String(inv.InputSummary), Status: inv.Status,
			EvidenceStatus: nullable(inv.EvidenceStatus), ErrorCode: nullable(inv.ErrorCode), Control: nullable(inv.Control),
			Observation: rawJSON(shownJSON(inv.Observation), "null"), StartedAt: timeJSON(inv.StartedAt), DurationMS: inv.DurationMS,
		})
	}
	for _, r := range d.ModelRounds {
		out.ModelRounds = append(out.ModelRounds, modelRoundJSON{
			Seq: r.Seq, Purpose: r.Purpose, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
			DurationMS: r.DurationMS, ErrorKind: nullable(r.ErrorKind), StartedAt: timeJSON(r.StartedAt),
		})
	}
	for _, g := range d.GuardReviews {
		out.GuardReviews = append(out.GuardReviews, guardReviewJSON{
			Seq: g.Seq, Guard: g.Guard, Verdict: g.Verdict, Reasons: rawJSON(shownJSON(g.Reasons), "[]"), CreatedAt: timeJSON(g.CreatedAt),
		})
	}
	return out
}

func timeJSON(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// getRun loads one run, mapping "no such run" to a usage error that names
// the store looked in.
func getRun(ctx context.Context, store *runstore.Store, id string) (*runstore.RunDetail, error) {
	d, err := store.GetRun(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("no run %s in %s (see `superbiz runs`)", cell(id), store.Path())}
	}
	return d, err
}

func (a *app) runRunsShow(cmd *cobra.Command, id string) (err error) {
	store, err := a.openStore(cmd)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	d, err := getRun(cmd.Context(), store, id)
	if err != nil {
		return err
	}
	if a.flags.output == outputJSON {
		return writeJSON(a.io.Out, detailJSON(d))
	}
	var b strings.Builder
	renderRun(&b, d, a.flags.output == outputMarkdown)
	if _, err := io.WriteString(a.io.Out, b.String()); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	return nil
}

// renderRun writes one run as text (aligned tables) or Markdown; every
// stored string goes through cell or shownText first.
func renderRun(b *strings.Builder, d *runstore.RunDetail, markdown bool) {
	heading := func(s string) {
		if markdown {
			fmt.Fprintf(b, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(b, "\n%s\n%s\n", s, strings.Repeat("-", utf8.RuneCountInString(s)))
		}
	}
	tbl := func(t table) {
		if markdown {
			_ = writeMarkdownTable(b, t) // a strings.Builder never fails
		} else {
			_ = writeTextTable(b, t)
		}
	}

	if markdown {
		fmt.Fprintf(b, "# Run %s\n\n", cell(d.ID))
	} else {
		fmt.Fprintf(b, "Run %s\n", cell(d.ID))
	}
	kv := table{header: []string{"FIELD", "VALUE"}}
	add := func(k, v string) {
		if v != "" {
			kv.rows = append(kv.rows, []string{k, v})
		}
	}
	add("session", cell(d.SessionID))
	add("replay of", cell(d.ReplayOf))
	created := d.CreatedAt.Local().Format("2006-01-02 15:04:05 MST")
	if !d.FinishedAt.IsZero() {
		created += " → " + d.FinishedAt.Local().Format("15:04:05")
	}
	add("created", created)
	add("query", cell(d.Query))
	add("intent", orDash(cell(d.Intent)))
	add("status", fmt.Sprintf("%s · outcome %s · stop %s · lifecycle %s",
		orDash(cell(d.Status)), orDash(cell(d.ReleaseOutcome)), orDash(cell(d.StopReason)), orDash(cell(d.Lifecycle))))
	model := cell(d.Model)
	if h := cell(d.Host); h != "" {
		model += " @ " + h
	}
	add("model", model)
	if !d.Clock.IsZero() {
		add("clock", d.Clock.Format(time.RFC3339))
	}
	add("budget", budgetLine(d.Budget))
	u := d.Usage
	add("usage", fmt.Sprintf("%d model calls, %d tool calls, %d tokens (%d prompt + %d completion), %d bytes, %s",
		u.ModelCalls, u.ToolCalls, u.PromptTokens+u.CompletionTokens, u.PromptTokens, u.CompletionTokens, u.Bytes, runDuration(d.RunSummary)))
	if d.ErrorCode != "" || d.ErrorMessage != "" {
		add("error", strings.TrimSpace(cell(d.ErrorCode)+": "+cell(d.ErrorMessage)))
	}
	if markdown {
		b.WriteString("\n")
		for _, r := range kv.rows {
			fmt.Fprintf(b, "- **%s**: %s\n", r[0], r[1])
		}
	} else {
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, r := range kv.rows {
			fmt.Fprintf(tw, "  %s\t%s\n", r[0], r[1])
		}
		_ = tw.Flush()
	}

	heading("Answer")
	if ans := strings.TrimSpace(shownText(d.Answer)); ans != "" {
		b.WriteString(ans + "\n")
	} else {
		b.WriteString("(no answer)\n")
	}

	heading("Published result")
	if len(d.PublishedResult) == 0 {
		b.WriteString("none (only a released SUCCESS publishes a result)\n")
	} else {
		b.WriteString(publishedLine(d.PublishedResult) + "\n")
	}

	heading("Checks")
	var checks []harness.Check
	var checksErr error
	if len(d.Checks) > 0 {
		checksErr = json.Unmarshal(d.Checks, &checks)
	}
	switch {
	case checksErr != nil:
		fmt.Fprintf(b, "(stored checks are unreadable: %s)\n", cell(checksErr.Error()))
	case len(checks) == 0:
		b.WriteString("none\n")
	}
	for _, c := range checks {
		line := "- " + cell(c.Tool) + " " + cell(string(c.EvidenceStatus))
		if c.ErrorCode != "" {
			line += " " + cell(c.ErrorCode)
		}
		if s := cell(c.Summary); s != "" {
			line += " — " + textclip.Width(s, harness.MaxCheckSummaryBytes)
		}
		b.WriteString(line + "\n")
	}

	heading("Tool invocations")
	if len(d.Invocations) == 0 {
		b.WriteString("none\n")
	} else {
		t := table{header: []string{"SEQ", "TOOL CALL ID", "TOOL", "KIND", "INPUT", "OUTCOME", "DURATION"}}
		for _, inv := range d.Invocations {
			t.rows = append(t.rows, []string{
				strconv.Itoa(inv.Seq), cell(inv.ToolCallID), cell(inv.Tool), orDash(cell(inv.Kind)),
				textclip.Width(invocationInput(inv), 80), invocationOutcome(inv), durationMS(inv.DurationMS),
			})
		}
		tbl(t)
	}

	heading("Model rounds")
	if len(d.ModelRounds) == 0 {
		b.WriteString("none\n")
	} else {
		t := table{header: []string{"SEQ", "PURPOSE", "PROMPT", "COMPLETION", "DURATION", "ERROR"}}
		for _, r := range d.ModelRounds {
			t.rows = append(t.rows, []string{
				strconv.Itoa(r.Seq), orDash(cell(r.Purpose)), strconv.Itoa(r.PromptTokens), strconv.Itoa(r.CompletionTokens),
				durationMS(r.DurationMS), orDash(cell(r.ErrorKind)),
			})
		}
		tbl(t)
	}

	heading("Guard reviews (local audit data, never published)")
	if len(d.GuardReviews) == 0 {
		b.WriteString("none\n")
	}
	for _, g := range d.GuardReviews {
		fmt.Fprintf(b, "- %s: %s\n", orDash(cell(g.Guard)), orDash(cell(g.Verdict)))
		var reasons []string
		if len(g.Reasons) > 0 {
			if err := json.Unmarshal(g.Reasons, &reasons); err != nil {
				fmt.Fprintf(b, "  - (stored reasons are unreadable: %s)\n", cell(err.Error()))
			}
		}
		for _, r := range reasons {
			fmt.Fprintf(b, "  - %s\n", cell(r))
		}
	}
}

// invocationInput is the one-line summary the harness recorded, or the
// canonical input when there is none.
func invocationInput(inv runstore.Invocation) string {
	if s := cell(inv.InputSummary); s != "" {
		return s
	}
	return orDash(cell(string(inv.CanonicalInput)))
}

// invocationOutcome says what an invocation gave: a playbook read for a
// guidance step, the control for a refused call, the evidence status (and
// error code) for an evidence call.
func invocationOutcome(inv runstore.Invocation) string {
	var out string
	switch {
	case inv.Kind == runstore.KindGuidance:
		out = "playbook read"
		if inv.Status != "" && inv.Status != "COMPLETED" {
			out += " (" + cell(inv.Status) + ")"
		}
	case inv.Control != "":
		out = cell(inv.Control)
	case inv.EvidenceStatus != "":
		out = cell(inv.EvidenceStatus)
	default:
		out = orDash(cell(inv.Status))
	}
	if inv.ErrorCode != "" {
		out += " " + cell(inv.ErrorCode)
	}
	return out
}

// budgetLine prints the budget a run was given, as recorded.
func budgetLine(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var bu harness.Budget
	if err := json.Unmarshal(raw, &bu); err != nil {
		return "(unreadable: " + cell(err.Error()) + ")"
	}
	return fmt.Sprintf("%d model calls, %d tool calls, %d tokens, %d bytes, deadline %s, %d no-gain",
		bu.MaxModelCalls, bu.MaxToolCalls, bu.MaxTokens, bu.MaxRunBytes, bu.Deadline, bu.MaxNoGain)
}

// publishedLine summarizes the stored PublishedResult: its conclusion and
// how many findings it has (the answer above shows it in full).
func publishedLine(raw json.RawMessage) string {
	var r struct {
		Conclusion *struct {
			Summary    string `json:"summary"`
			Confidence string `json:"confidence"`
		} `json:"conclusion"`
		Findings      []json.RawMessage `json:"findings"`
		KnowledgeRefs []json.RawMessage `json:"knowledge_refs"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "(stored result is unreadable: " + cell(err.Error()) + ")"
	}
	line := fmt.Sprintf("%d findings, %d knowledge references", len(r.Findings), len(r.KnowledgeRefs))
	if r.Conclusion != nil {
		line = fmt.Sprintf("conclusion (%s confidence): %s\n%s", cell(r.Conclusion.Confidence), cell(r.Conclusion.Summary), line)
	}
	return line
}
