package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// styles are the few looks the views use. They are drawn in full colour;
// bubbletea brings them down to what the terminal shows when it writes the
// frame (its colour profile: NO_COLOR, TERM, the output), so nothing here
// depends on the terminal.
type styles struct {
	title, label, dim, ok, warn, bad, full, empty, box, badge, user lipgloss.Style
}

func newStyles() styles {
	s := lipgloss.NewStyle()
	return styles{
		title: s.Bold(true),
		label: s.Foreground(lipgloss.Color("7")),
		dim:   s.Faint(true),
		ok:    s.Foreground(lipgloss.Color("2")),
		warn:  s.Foreground(lipgloss.Color("3")),
		bad:   s.Foreground(lipgloss.Color("1")),
		full:  s.Foreground(lipgloss.Color("6")),
		empty: s.Foreground(lipgloss.Color("8")),
		box:   s.Border(lipgloss.RoundedBorder()).Padding(0, 1),
		badge: s.Bold(true).Foreground(lipgloss.Color("5")),
		user:  s.Bold(true).Foreground(lipgloss.Color("4")),
	}
}

// stepKind tells timeline rows apart.
type stepKind int

const (
	stepModel stepKind = iota
	stepTool
	stepStop
	stepFinish
)

// step is one timeline row; rows are updated in place as rounds and tool
// calls finish.
type step struct {
	kind     stepKind
	seq      int
	purpose  runrecord.Purpose
	tokens   int
	errKind  string
	done     bool
	callID   string
	tool     string
	summary  string
	tally    string // what the call found ("412 matched"), kept after the run ends
	outcome  string
	guidance bool
	// guideErr is the error code of a guidance step that loaded nothing.
	guideErr string
	evidence bool // an evidence tool's call (not a playbook read, not refused)
	reason   string
	failed   bool // a finish step of a FAILED or CANCELLED run
}

// runState is everything a view knows about one run, built only from its
// events; it is shared by the diagnose view and the chat's turn in progress.
type runState struct {
	query      string
	runID      string
	budget     harness.Budget
	haveBudget bool
	usage      runrecord.Usage
	timeLeft   time.Duration
	anchor     time.Time // when timeLeft was read, on the view's clock
	steps      []step
	modelBusy  bool
	modelSince time.Time // when the current model call started, on the view's clock
	toolBusy   string
	stopReason string
	finished   bool
	lifecycle  string
	// modelWait is the spinner row's text while a model call runs ("":
	// modelWaitDefault), so a demo says it plays its transcript.
	modelWait string
	// panel is the timeline of the run's latest build_timeline call, nil
	// before one starts (timelinepanel.go).
	panel *timelinePanel
}

// modelWaitDefault is the spinner row while a model call runs.
const modelWaitDefault = "waiting for the model…"

// apply folds one event into the state; now is the view's clock, used to
// count the time left down between budget reports.
func (s *runState) apply(ev harness.Event, now time.Time) {
	s.applyTimeline(ev)
	switch e := ev.(type) {
	case harness.RunStarted:
		s.query, s.runID = e.Query, e.RunID
		s.budget, s.haveBudget = e.Budget, true
		s.timeLeft, s.anchor = e.Budget.Deadline, now
	case harness.ModelRoundStarted:
		s.steps = append(s.steps, step{kind: stepModel, seq: e.Seq, purpose: e.Purpose})
		s.modelBusy, s.modelSince = true, now
	case harness.ModelRoundFinished:
		s.modelBusy = false
		i := s.find(func(st step) bool { return st.kind == stepModel && st.seq == e.Seq })
		if i < 0 {
			s.steps = append(s.steps, step{kind: stepModel, seq: e.Seq, purpose: e.Purpose})
			i = len(s.steps) - 1
		}
		st := &s.steps[i]
		st.done, st.errKind = true, e.ErrorKind
		st.tokens = e.Usage.PromptTokens + e.Usage.CompletionTokens
	case harness.ToolCallStarted:
		s.steps = append(s.steps, step{kind: stepTool, callID: e.ToolCallID, tool: e.Tool})
		s.toolBusy = e.Tool
	case harness.ToolCallFinished:
		s.toolBusy = ""
		inv := e.Invocation
		i := s.find(func(st step) bool { return st.kind == stepTool && !st.done && st.callID == inv.ToolCallID })
		if i < 0 {
			s.steps = append(s.steps, step{kind: stepTool, callID: inv.ToolCallID})
			i = len(s.steps) - 1
		}
		st := &s.steps[i]
		st.done, st.tool, st.summary, st.tally = true, inv.Tool, inv.Summary, inv.Tally
		st.guidance = inv.Kind == runrecord.KindGuidance
		if st.guidance {
			st.guideErr = inv.ErrorCode
		}
		st.evidence = inv.Kind == runrecord.KindEvidence
		st.outcome = inv.Outcome()
		if st.outcome == "" && !st.guidance {
			st.outcome = inv.Status
		}
	case harness.BudgetChanged:
		s.usage = e.Usage
		s.budget, s.haveBudget = e.Budget, true
		s.timeLeft, s.anchor = e.TimeLeft, now
	case harness.StopRequired:
		s.stopReason = string(e.Reason)
		s.steps = append(s.steps, step{kind: stepStop, reason: string(e.Reason)})
	case harness.RunFinished:
		s.timeLeft, s.anchor = s.left(now), now
		s.finished, s.modelBusy, s.toolBusy = true, false, ""
		s.usage = e.Usage
		s.lifecycle = string(e.Lifecycle)
		if e.StopReason != "" {
			s.stopReason = string(e.StopReason)
		}
		reason := statusWords(string(e.Lifecycle), string(e.StopReason))
		if e.Lifecycle == runrecord.Cancelled {
			reason += " · " + s.gathered()
		}
		s.steps = append(s.steps, step{kind: stepFinish, reason: reason, failed: endMark(string(e.Lifecycle), string(e.Outcome)) == "✗"})
	}
}

// gathered says how many of the run's tool calls had found evidence, for
// the end of a cancelled run: what was found is still on the screen.
func (s *runState) gathered() string {
	calls, found := 0, 0
	for _, sp := range s.steps {
		if sp.kind == stepTool && sp.done && sp.evidence {
			calls++
			if sp.outcome == string(tools.EvidenceFound) {
				found++
			}
		}
	}
	return gatheredWords(found, calls)
}

// gatheredWords is "2 of 3 tool calls had gathered evidence".
func gatheredWords(found, calls int) string {
	noun := "tool calls"
	if calls == 1 {
		noun = "tool call"
	}
	return fmt.Sprintf("%d of %d %s had gathered evidence", found, calls, noun)
}

// find returns the index of the last step matching ok, or -1.
func (s *runState) find(ok func(step) bool) int {
	for i := len(s.steps) - 1; i >= 0; i-- {
		if ok(s.steps[i]) {
			return i
		}
	}
	return -1
}

// left is the time left now: the last reading counted down on the view's
// clock, frozen once the run finished.
func (s *runState) left(now time.Time) time.Duration {
	if s.finished || s.anchor.IsZero() {
		return max(s.timeLeft, 0)
	}
	return max(s.timeLeft-now.Sub(s.anchor), 0)
}

// busy reports whether the run waits on the model or a tool.
func (s *runState) busy() bool { return !s.finished && (s.modelBusy || s.toolBusy != "") }

// budgetRow is one labelled budget: used of max, or time left of deadline.
type budgetRow struct {
	label     string
	used, max int
	text      string
	fraction  float64
}

func (s *runState) rows(now time.Time) []budgetRow {
	b, u := s.budget, s.usage
	row := func(label string, used, limit int) budgetRow {
		r := budgetRow{label: label, used: used, max: limit, text: comma(used) + "/" + comma(limit)}
		if limit > 0 {
			r.fraction = float64(used) / float64(limit)
		}
		return r
	}
	left := s.left(now)
	tl := budgetRow{label: "time left", text: clock(left)}
	if b.Deadline > 0 {
		tl.fraction = float64(left) / float64(b.Deadline)
	}
	return []budgetRow{
		row("model calls", u.ModelCalls, b.MaxModelCalls),
		row("tool calls", u.ToolCalls, b.MaxToolCalls),
		row("tokens", u.Tokens(), b.MaxTokens),
		row("bytes", u.Bytes, b.MaxRunBytes),
		tl,
	}
}

// budgetView draws the five budgets: bars in a box when wide, one plain
// "label used/max" line each when narrow.
func (s *runState) budgetView(st styles, width int, plain bool, now time.Time) string {
	rows := s.rows(now)
	if plain {
		lines := make([]string, len(rows))
		for i, r := range rows {
			lines[i] = r.label + " " + r.text
		}
		return strings.Join(lines, "\n")
	}
	// Room for "262,144/262,144" keeps the box one width for the whole run.
	countW := 15
	for _, r := range rows {
		countW = max(countW, len(r.text))
	}
	const labelW = 12
	inner := width - 4 // border and padding
	barW := min(max(inner-labelW-2-countW, 8), 48)
	lines := make([]string, len(rows))
	for i, r := range rows {
		f := min(max(r.fraction, 0), 1)
		n := int(f*float64(barW) + 0.5)
		if f > 0 && n == 0 {
			n = 1
		}
		bar := st.full.Render(strings.Repeat("█", n)) + st.empty.Render(strings.Repeat("░", barW-n))
		lines[i] = st.label.Render(fmt.Sprintf("%-*s", labelW, r.label)) + bar + "  " + fmt.Sprintf("%*s", countW, r.text)
	}
	return st.box.Render(strings.Join(lines, "\n"))
}

// purposeText names the non-default model round purposes in the timeline.
func purposeText(p runrecord.Purpose) string {
	switch p {
	case runrecord.PurposeFinal:
		return "final answer, no tools"
	case runrecord.PurposeSemanticGuard:
		return "semantic guard"
	case runrecord.PurposeRouter:
		return "router"
	case runrecord.PurposeKnowledgeAnswer:
		return "knowledge answer"
	case runrecord.PurposeSystemChat:
		return "chat answer"
	}
	return ""
}

// outcomeStyle colours a tool outcome by what it means for the diagnosis.
func outcomeStyle(st styles, outcome string) lipgloss.Style {
	switch {
	case outcome == string(tools.EvidenceFound):
		return st.ok
	case outcome == "NO_EVIDENCE":
		return st.dim
	case strings.HasPrefix(outcome, "ERROR"), outcome == runrecord.ControlStop:
		return st.bad
	}
	return st.warn
}

// minSummaryWidth is the room a tool line's argument keeps before its
// tally is cut.
const minSummaryWidth = 24

// shortOutcome is the status word of a tool line that does not fit: the
// two evidence verdicts shrink to one word; errors and controls keep
// theirs (they say what went wrong).
func shortOutcome(outcome string) string {
	switch outcome {
	case string(tools.EvidenceFound):
		return "found"
	case string(tools.NoEvidence):
		return "none"
	}
	return outcome
}

// timeline draws the steps, keeping only the last maxLines rows (0: all)
// with a note of how many earlier ones were left out.
func (s *runState) timeline(st styles, width int, maxLines int) []string {
	var lines []string
	for _, sp := range s.steps {
		lines = append(lines, stepLine(st, sp, width))
	}
	if maxLines > 0 && len(lines) > maxLines {
		cut := len(lines) - maxLines + 1
		lines = append([]string{st.dim.Render(fmt.Sprintf("… %d earlier steps", cut))}, lines[cut:]...)
	}
	return lines
}

func stepLine(st styles, sp step, width int) string {
	switch sp.kind {
	case stepModel:
		line := fmt.Sprintf("● model round %d", sp.seq)
		if p := purposeText(sp.purpose); p != "" {
			line += " · " + p
		}
		switch {
		case !sp.done:
			line += " …"
		case sp.errKind != "":
			return textclip.Width(line, width) + st.bad.Render(" · "+termsafe.Line(sp.errKind))
		default:
			line += " · " + comma(sp.tokens) + " tokens"
		}
		return textclip.Width(line, width)
	case stepTool:
		head := "  ↳ " + termsafe.Line(sp.tool)
		if !sp.done {
			return textclip.Width(head+" …", width)
		}
		tail := " → " + sp.outcome
		if sp.guidance {
			tail = " → playbook loaded"
			if sp.guideErr != "" {
				tail = " → playbook not loaded " + termsafe.Line(sp.guideErr)
			}
		}
		found := ""
		if t := termsafe.Line(sp.tally); t != "" {
			found = " · " + t
		}
		summary := termsafe.Line(sp.summary)
		outcome := sp.outcome
		if summary != "" && !sp.guidance && ansi.StringWidth(head+"  "+summary+tail+found) > width {
			// the argument says what was read: on a narrow line the status
			// word gives way first, then the tally's detail (issue 40 #13)
			outcome = shortOutcome(outcome)
			tail = " → " + outcome
			if ansi.StringWidth(head+"  "+summary+tail+found) > width {
				found, _, _ = strings.Cut(found, ",")
			}
		}
		over := width - ansi.StringWidth(head) - ansi.StringWidth(tail)
		if summary != "" && !sp.guidance {
			over -= 2 + min(ansi.StringWidth(summary), minSummaryWidth) // the argument keeps its room
		}
		switch {
		case ansi.StringWidth(found) <= over:
		case over < len(" · x"):
			found = ""
		default:
			found = textclip.Width(found, over) // the tally goes after the summary, before the line wraps
		}
		room := width - ansi.StringWidth(head) - ansi.StringWidth(tail) - ansi.StringWidth(found) - 2
		if summary != "" && room >= 8 {
			head += "  " + textclip.Width(summary, room)
		}
		if sp.guidance {
			return head + st.dim.Render(tail)
		}
		return head + " → " + outcomeStyle(st, sp.outcome).Render(outcome) + found
	case stepStop:
		return st.bad.Render(textclip.Width("■ stop required · "+termsafe.Line(sp.reason), width))
	case stepFinish:
		if sp.failed {
			return st.bad.Render(textclip.Width("✗ run finished · "+sp.reason, width))
		}
		return st.title.Render(textclip.Width("✔ run finished · "+sp.reason, width))
	}
	return ""
}

// waitLine is the spinner row: what the run is waiting on right now, with
// how long the current model call has taken once it passes a second.
func (s *runState) waitLine(frame string, cancelling bool, now time.Time) string {
	switch {
	case cancelling && !s.finished:
		return frame + "cancelling…"
	case s.finished:
		return ""
	case s.modelBusy:
		wait := s.modelWait
		if wait == "" {
			wait = modelWaitDefault
		}
		line := frame + wait
		if took := now.Sub(s.modelSince); !s.modelSince.IsZero() && took >= time.Second {
			line += " " + clock(took)
		}
		return line
	case s.toolBusy != "":
		return frame + "running " + termsafe.Line(s.toolBusy) + "…"
	}
	return ""
}
