package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// runsRenderer writes `runs` and `runs show` in one output format; each
// format has exactly one (text, Markdown, JSON), chosen by runsRendererFor.
type runsRenderer interface {
	// list writes the listing of `runs`, or empty when there are no runs
	// (the JSON renderer writes an empty array instead).
	list(w egress.Writer, runs []runstore.RunSummary, empty string) error
	// show writes one run in full.
	show(w egress.Writer, d *runstore.RunDetail) error
}

// runsRendererFor is the renderer of an -o value (already validated);
// width is stdout's terminal width the listing fits, 0 when not a terminal.
func runsRendererFor(output outputFormat, width int) runsRenderer {
	switch output {
	case outputJSON:
		return jsonRuns{}
	case outputMarkdown:
		return pageRuns{page: markdownPage{}}
	case outputWide:
		return pageRuns{page: textPage{}}
	}
	return pageRuns{page: textPage{}, width: width}
}

// table is a header and rows of already printable cells, rendered aligned
// for a terminal or as a Markdown table.
type table struct {
	header []string
	rows   [][]string
	// fit is the terminal width a text table's lines are kept within by
	// cutting the last column (with textclip.Marker) instead of letting the
	// terminal wrap it; 0 keeps every cell whole (piped output, Markdown).
	fit int
}

// runView is one run as `runs show` presents it in text and Markdown: the
// same content for both, every stored string already made printable.
type runView struct {
	id       string
	fields   [][2]string // label, value; empty values are left out
	sections []runSection
}

// runSection is a titled part of runView: lines of text, or a table.
type runSection struct {
	title string
	// note is a line said before the section's content (which page of the
	// tool invocations is shown), "" for none.
	note  string
	text  string // whole lines, each ending in "\n"; unused when table is set
	table *table
	// fit, when set, is the table laid out for a terminal of the given
	// width (text on a terminal): used instead of table there.
	fit func(width int) *table
}

// newRunView is the content of `runs show` for a stored run.
func newRunView(d *runstore.RunDetail) runView {
	v := runView{id: numbered(d.RunSummary)}
	add := func(k, val string) {
		if val != "" {
			v.fields = append(v.fields, [2]string{k, val})
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
	if s, ok, err := d.DecodeSettings(); err == nil && ok {
		model += " (provider " + cell(s.ProviderName()) + ")"
	}
	add("model", model)
	if !d.Clock.IsZero() {
		add("clock", d.Clock.Format(time.RFC3339))
	}
	add("budget", settingsLine(d))
	u := d.Usage
	add("usage", fmt.Sprintf("%d model calls, %d tool calls, %d tokens (%d prompt + %d completion), %d bytes, %s",
		u.ModelCalls, u.ToolCalls, u.PromptTokens+u.CompletionTokens, u.PromptTokens, u.CompletionTokens, u.Bytes, runDuration(d.RunSummary)))
	if d.ErrorCode != "" || d.ErrorMessage != "" {
		add("error", strings.TrimSpace(cell(d.ErrorCode)+": "+cell(d.ErrorMessage)))
	}

	answer := "(no answer)\n"
	if ans := strings.TrimSpace(shownText(d.Answer)); ans != "" {
		answer = ans + "\n"
	}
	v.sections = append(v.sections,
		runSection{title: "Answer", text: answer},
		runSection{title: "Published result", text: publishedLines(d)},
		runSection{title: "Checks", text: checkLines(d)},
		runSection{title: "Tool invocations", note: invocationPageNote(d), text: "none\n", table: invocationTable(d.Invocations), fit: invocationFitTable(d.Invocations)},
		runSection{title: "Model rounds", text: "none\n", table: modelRoundTable(d.ModelRounds)},
		runSection{title: "Guard reviews (local audit data, never published)", text: guardLines(d.GuardReviews)},
	)
	return v
}

// settingsLine prints the budget a run was given, as recorded.
func settingsLine(d *runstore.RunDetail) string {
	s, ok, err := d.DecodeSettings()
	switch {
	case err != nil:
		return "(" + cell(err.Error()) + ")"
	case !ok:
		return ""
	}
	return fmt.Sprintf("%d model calls, %d tool calls, %d tokens, %d bytes, deadline %s, %d no-gain",
		s.MaxModelCalls, s.MaxToolCalls, s.MaxTokens, s.MaxRunBytes, s.Deadline, s.MaxNoGain)
}

// publishedLines summarize the stored PublishedResult: its conclusion and
// how many findings it has (the answer shows it in full).
func publishedLines(d *runstore.RunDetail) string {
	r, ok, err := d.DecodeResultSummary()
	switch {
	case err != nil:
		return "(" + cell(err.Error()) + ")\n"
	case !ok:
		return "none (only a released SUCCESS publishes a result)\n"
	}
	line := fmt.Sprintf("%d findings, %d knowledge references\n", len(r.Findings), len(r.KnowledgeRefs))
	if r.Conclusion != nil {
		line = fmt.Sprintf("conclusion (%s confidence): %s\n%s", cell(r.Conclusion.Confidence), cell(r.Conclusion.Summary), line)
	}
	return line
}

// checkSummaryWidth bounds a check's summary in `runs show`.
const checkSummaryWidth = harness.MaxCheckSummaryBytes

// checkLines list the stored checks, one per line.
func checkLines(d *runstore.RunDetail) string {
	checks, err := d.DecodeChecks()
	switch {
	case err != nil:
		return "(" + cell(err.Error()) + ")\n"
	case len(checks) == 0:
		return "none\n"
	}
	var b strings.Builder
	for _, c := range checks {
		line := "- " + cell(c.Tool) + " " + cell(c.EvidenceStatus)
		if c.ErrorCode != "" {
			line += " " + cell(c.ErrorCode)
		}
		if s := cell(c.Summary); s != "" {
			line += " — " + textclip.Width(s, checkSummaryWidth)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// invocationInputWidth bounds the INPUT column of the invocations table.
const invocationInputWidth = 80

// invocationDetailWidth bounds the detail line under a refused or failed
// call (`runs show -o json` has it whole).
const invocationDetailWidth = 160

// invocationTable is the audit's tool invocations, nil when there are none.
// Under a refused or failed call a row of its own shows the audit's detail
// (why: the server's message, the statement a policy refused); it is the
// row's last cell, so it widens no column.
func invocationTable(invs []runrecord.Invocation) *table {
	if len(invs) == 0 {
		return nil
	}
	t := &table{header: []string{"SEQ", "TOOL CALL ID", "TOOL", "KIND", "INPUT", "OUTCOME", "DURATION"}}
	for _, inv := range invs {
		t.rows = append(t.rows, []string{
			strconv.Itoa(inv.Seq), cell(inv.ToolCallID), cell(inv.Tool), orDash(cell(inv.Kind)),
			textclip.Width(invocationInput(inv), invocationInputWidth), invocationOutcome(inv), durationMS(inv.Duration.Milliseconds()),
		})
		if d := invocationDetail(inv); d != "" {
			t.rows = append(t.rows, []string{"", "", "", "", "↳ " + textclip.Width(d, invocationDetailWidth)})
		}
	}
	return t
}

// invocationColumn is one column of the tool invocations table.
type invocationColumn = fitColumn[runrecord.Invocation]

var (
	invSeq      = invocationColumn{"SEQ", func(inv runrecord.Invocation) string { return strconv.Itoa(inv.Seq) }}
	invCallID   = invocationColumn{"TOOL CALL ID", func(inv runrecord.Invocation) string { return cell(inv.ToolCallID) }}
	invTool     = invocationColumn{"TOOL", func(inv runrecord.Invocation) string { return cell(inv.Tool) }}
	invKind     = invocationColumn{"KIND", func(inv runrecord.Invocation) string { return orDash(cell(inv.Kind)) }}
	invOutcome  = invocationColumn{"OUTCOME", invocationOutcome}
	invDuration = invocationColumn{"DURATION", func(inv runrecord.Invocation) string { return durationMS(inv.Duration.Milliseconds()) }}
)

// invocationFitTable lays the tool invocations out for a terminal of the
// given width, as `runs` fits its listing: SEQ, TOOL, OUTCOME, then
// DURATION, TOOL CALL ID and KIND each only while INPUT keeps minRunsQuery
// columns, and INPUT (and a refused call's detail) last, cut to the width
// rather than wrapped. nil without invocations.
func invocationFitTable(invs []runrecord.Invocation) func(width int) *table {
	if len(invs) == 0 {
		return nil
	}
	return func(width int) *table {
		chosen := map[string]bool{invSeq.header: true, invTool.header: true, invOutcome.header: true}
		layout := func() []invocationColumn {
			var cols []invocationColumn
			for _, c := range []invocationColumn{invSeq, invCallID, invTool, invKind, invOutcome, invDuration} {
				if chosen[c.header] {
					cols = append(cols, c)
				}
			}
			return cols
		}
		for _, opt := range []invocationColumn{invDuration, invCallID, invKind} {
			chosen[opt.header] = true
			if width-columnsWidth(invs, layout()) < minRunsQuery {
				chosen[opt.header] = false
			}
		}
		cols := layout()
		t := &table{fit: width}
		for _, c := range cols {
			t.header = append(t.header, c.header)
		}
		t.header = append(t.header, "INPUT")
		for _, inv := range invs {
			row := make([]string, 0, len(cols)+1)
			for _, c := range cols {
				row = append(row, c.cell(inv))
			}
			t.rows = append(t.rows, append(row, invocationInput(inv)))
			if d := invocationDetail(inv); d != "" {
				t.rows = append(t.rows, append(make([]string, len(cols)), "↳ "+d))
			}
		}
		return t
	}
}

// invocationPageNote says which of the run's tool invocations the page
// shows when it is not all of them, and how to see the next ones.
func invocationPageNote(d *runstore.RunDetail) string {
	n, total, off := len(d.Invocations), d.InvocationsTotal, d.InvocationsOffset
	switch {
	case n == total:
		return ""
	case n == 0:
		return fmt.Sprintf("none from --offset %d: the run has %d", off, total)
	case off+n < total:
		return fmt.Sprintf("%d–%d of %d; --offset %d shows the next ones", off+1, off+n, total, off+n)
	}
	return fmt.Sprintf("%d–%d of %d", off+1, off+n, total)
}

// invocationDetail is the detail shown under a refused or failed call, ""
// for a call that completed without an error or has none recorded.
func invocationDetail(inv runrecord.Invocation) string {
	if inv.Status == runrecord.InvocationCompleted && inv.EvidenceStatus != tools.StatusError {
		return ""
	}
	return cell(inv.Detail)
}

// modelRoundTable is the audit's model rounds, nil when there are none.
func modelRoundTable(rounds []runrecord.ModelRound) *table {
	if len(rounds) == 0 {
		return nil
	}
	t := &table{header: []string{"SEQ", "PURPOSE", "PROMPT", "COMPLETION", "DURATION", "ERROR"}}
	for _, r := range rounds {
		prompt, completion := strconv.Itoa(r.PromptTokens), strconv.Itoa(r.CompletionTokens)
		if runview.TokensEstimated(r) {
			prompt, completion = "~"+prompt, "~"+completion
		}
		t.rows = append(t.rows, []string{
			strconv.Itoa(r.Seq), orDash(cell(r.Purpose)), prompt, completion,
			durationMS(r.Duration.Milliseconds()), orDash(cell(r.ErrorKind)),
		})
	}
	return t
}

// guardLines list each guard's verdict and its audit-only reasons.
func guardLines(reviews []runstore.GuardReview) string {
	if len(reviews) == 0 {
		return "none\n"
	}
	var b strings.Builder
	for _, g := range reviews {
		fmt.Fprintf(&b, "- %s: %s\n", orDash(cell(g.Guard)), orDash(cell(g.Verdict)))
		reasons, err := g.DecodeReasons()
		if err != nil {
			fmt.Fprintf(&b, "  - (%s)\n", cell(err.Error()))
		}
		for _, r := range reasons {
			fmt.Fprintf(&b, "  - %s\n", cell(r))
		}
	}
	return b.String()
}

// invocationInput is the one-line summary the harness recorded, or the
// canonical input when there is none.
func invocationInput(inv runrecord.Invocation) string {
	if s := cell(inv.Summary); s != "" {
		return s
	}
	return orDash(cell(string(inv.Input)))
}

// invocationOutcome says what an invocation gave: a playbook read for a
// guidance step, the control for a refused call, the evidence status (and
// error code) for an evidence call.
func invocationOutcome(inv runrecord.Invocation) string {
	var out string
	switch {
	case inv.Kind == runrecord.KindGuidance && inv.ErrorCode != "":
		out = "playbook not read"
	case inv.Kind == runrecord.KindGuidance:
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

// runPage is how one format lays out the parts of a runView and a table;
// pageRuns puts them in order, so text and Markdown show the same run.
type runPage interface {
	title(b *strings.Builder, id string)
	fields(b *strings.Builder, fields [][2]string)
	heading(b *strings.Builder, title string)
	note(b *strings.Builder, line string)
	table(w io.Writer, t table) error
}

// pageRuns is the renderer of a page format (text, Markdown): the same
// content, laid out by its runPage.
type pageRuns struct {
	page  runPage
	width int // the terminal width the listing fits, 0 for every column whole
}

func (r pageRuns) list(w egress.Writer, runs []runstore.RunSummary, empty string) error {
	if len(runs) == 0 {
		return printPage(w, empty+"\n")
	}
	var b strings.Builder
	if r.width > 0 {
		_ = r.page.table(&b, runsFitTable(runs, r.width)) // a strings.Builder never fails
	} else {
		_ = r.page.table(&b, runsWideTable(runs))
	}
	return printPage(w, b.String())
}

// show writes `runs show` in the page's format.
func (r pageRuns) show(w egress.Writer, d *runstore.RunDetail) error {
	v := newRunView(d)
	var b strings.Builder
	r.page.title(&b, v.id)
	r.page.fields(&b, v.fields)
	for _, s := range v.sections {
		r.page.heading(&b, s.title)
		if s.note != "" {
			r.page.note(&b, s.note)
		}
		if s.fit != nil && r.width > 0 {
			_ = r.page.table(&b, *s.fit(r.width)) // a strings.Builder never fails
		} else if s.table != nil {
			_ = r.page.table(&b, *s.table) // a strings.Builder never fails
		} else {
			b.WriteString(s.text)
		}
	}
	return printPage(w, b.String())
}

// textPage lays out for a terminal: aligned tables, underlined headings.
type textPage struct{}

func (textPage) title(b *strings.Builder, id string) { fmt.Fprintf(b, "Run %s\n", id) }

func (textPage) fields(b *strings.Builder, fields [][2]string) {
	kv := table{rows: make([][]string, 0, len(fields))}
	for _, f := range fields {
		kv.rows = append(kv.rows, []string{"  " + f[0], f[1]})
	}
	_ = writeTextTable(b, kv) // a strings.Builder never fails
}

func (textPage) heading(b *strings.Builder, title string) {
	fmt.Fprintf(b, "\n%s\n%s\n", title, strings.Repeat("-", ansi.StringWidth(title)))
}

func (textPage) note(b *strings.Builder, line string) { b.WriteString(line + "\n") }

func (textPage) table(w io.Writer, t table) error { return writeTextTable(w, t) }

// markdownPage lays out GitHub-flavoured Markdown.
type markdownPage struct{}

func (markdownPage) title(b *strings.Builder, id string) { fmt.Fprintf(b, "# Run %s\n\n\n", id) }

func (markdownPage) fields(b *strings.Builder, fields [][2]string) {
	for _, f := range fields {
		fmt.Fprintf(b, "- **%s**: %s\n", f[0], f[1])
	}
}

func (markdownPage) heading(b *strings.Builder, title string) { fmt.Fprintf(b, "\n## %s\n\n", title) }

func (markdownPage) note(b *strings.Builder, line string) { b.WriteString(line + "\n\n") }

func (markdownPage) table(w io.Writer, t table) error { return writeMarkdownTable(w, t) }

// columnGap is the space between two columns of a text table.
const columnGap = 2

// minFitColumn is the fewest columns a fitted last column is cut to, so a
// terminal too narrow for the other columns still shows the text's start.
const minFitColumn = 12

// writeTextTable aligns a table for a terminal by display width (a CJK
// character or an emoji takes two cells, a combining mark none), columnGap
// spaces between columns; the last cell of a line is not padded. A table
// without a header prints its rows only. With t.fit set, the last cell of a
// line is cut so the line fills at most t.fit columns (never below
// minFitColumn).
func writeTextTable(w io.Writer, t table) error {
	rows := t.rows
	if t.header != nil {
		rows = append([][]string{t.header}, rows...)
	}
	var widths []int
	for _, row := range rows {
		for i := 0; i < len(row)-1; i++ {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(row[i]))
		}
	}
	lastAt := columnGap * len(widths)
	for _, wd := range widths {
		lastAt += wd
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			if t.fit > 0 && i == len(row)-1 && i == len(widths) {
				c = textclip.Width(c, max(t.fit-lastAt, minFitColumn))
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+columnGap))
			}
		}
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
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
func cell[T ~string](s T) string {
	return strings.Join(strings.Fields(shownText(string(s))), " ")
}

// shownText is stored text as `runs` and `replay` show it: control
// characters stripped and secrets redacted. The store redacts what it
// writes; this covers runs recorded before it did.
func shownText(s string) string {
	return egress.Mask(s).Shown().String()
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
	return durationMS(r.Usage.DurationMS)
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
