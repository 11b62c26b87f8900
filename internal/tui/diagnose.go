package tui

import (
	"io"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// ReportMsg is sent by cmd once the run is released: the answer to render
// and the exit code the process will end with. The diagnose view prints the
// final screen and quits when it arrives.
type ReportMsg struct {
	Markdown   string
	ExitCode   int
	Outcome    runrecord.Outcome
	StopReason runrecord.StopReason // "" uses the one RunFinished reported
}

// tickMsg counts the time left down once a second.
type tickMsg struct{}

func tick() tea.Cmd { return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} }) }

// DiagnoseOptions configures the diagnose view; everything that would make a
// frame differ between two runs (clock, spinner, colours, size) is here.
type DiagnoseOptions struct {
	Query string
	// Budget, when set, draws the limits before the first event arrives.
	Budget harness.Budget
	// Width and Height are the size until the first WindowSizeMsg (0: 80 wide).
	Width, Height int
	// Now is the view's clock for counting the time left (nil: time.Now).
	Now func() time.Time
	// Spinner is the waiting animation (zero: spinner.Dot); tests pin one
	// frame with a long FPS.
	Spinner spinner.Spinner
	// MarkdownStyle is the Markdown style of the report (see
	// MarkdownStyle; "": notty); a colour style follows the terminal's
	// background once it answers (see backgroundStyle).
	MarkdownStyle string
	// ModelWait is the spinner row's text while a model call runs ("":
	// "waiting for the model…"); a demo says it plays its transcript.
	ModelWait string
	// OnCancel asks the engine to cancel the run (cmd cancels the
	// RunContext, which then ends CANCELLED and still sends its report). It
	// runs as a command, outside Update. nil: q and Ctrl-C quit at once.
	OnCancel func()
}

// Diagnose is the bubbletea model of `superbiz diagnose`: budgets, the step
// timeline and a spinner while the run is live, then the report and the exit
// line. Update does no I/O; the caller's callbacks run as commands.
type Diagnose struct {
	opts       DiagnoseOptions
	st         styles
	spin       spinner.Model
	width      int
	height     int
	run        runState
	cancelling bool
	cancelled  bool // quit before the report arrived
	report     *ReportMsg
	rendered   string // the report rendered for width
	printed    bool   // the final screen went to the scrollback
	// profile is the terminal's colour profile as bubbletea detected it
	// (NO_COLOR, TERM, the output): the live screen is brought down to it
	// by the renderer, the final screen printed to the scrollback by us.
	profile colorprofile.Profile
}

// NewDiagnose builds the diagnose view.
func NewDiagnose(o DiagnoseOptions) Diagnose {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Spinner.Frames == nil {
		o.Spinner = spinner.Dot
	}
	w := o.Width
	if w <= 0 {
		w = defaultWidth
	}
	run := runState{query: o.Query, modelWait: o.ModelWait}
	if o.Budget != (harness.Budget{}) {
		run.budget, run.haveBudget = o.Budget, true
		run.timeLeft, run.anchor = o.Budget.Deadline, o.Now()
	}
	return Diagnose{
		opts:   o,
		st:     newStyles(),
		spin:   spinner.New(spinner.WithSpinner(o.Spinner)),
		width:  w,
		height: o.Height,
		run:    run,
	}
}

// Init starts the spinner and the once-a-second countdown, and asks the
// terminal for its background when the report is drawn in colour.
func (m Diagnose) Init() tea.Cmd {
	return tea.Batch(m.spin.Tick, tick(), askBackground(m.opts.MarkdownStyle))
}

// Cancelled reports whether the user quit before the report arrived (a
// second Ctrl-C); cmd then exits 130 without waiting for the report.
func (m Diagnose) Cancelled() bool { return m.cancelled }

// Update folds events, keys, size changes and the report into the model.
func (m Diagnose) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case EventMsg:
		m.run.apply(msg.Event, m.opts.Now())
	case harness.Event:
		m.run.apply(msg, m.opts.Now())
	case tickMsg:
		if m.report != nil {
			return m, nil
		}
		return m, tick()
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.BackgroundColorMsg:
		m.opts.MarkdownStyle = backgroundStyle(m.opts.MarkdownStyle, msg)
	case tea.ColorProfileMsg:
		m.profile = msg.Profile
	case ReportMsg:
		return m.finish(msg)
	}
	return m, nil
}

func (m Diagnose) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if s := k.String(); s != "q" && s != "ctrl+c" {
		return m, nil
	}
	if m.report != nil {
		return m, tea.Quit
	}
	if m.cancelling || m.opts.OnCancel == nil {
		m.cancelled = true
		return m, tea.Quit
	}
	m.cancelling = true
	cancel := m.opts.OnCancel
	return m, func() tea.Msg { cancel(); return nil }
}

// finish renders the report, prints the whole final screen into the
// scrollback (a report taller than the terminal would otherwise be cut by
// the renderer) and quits.
func (m Diagnose) finish(r ReportMsg) (tea.Model, tea.Cmd) {
	if r.StopReason == "" {
		r.StopReason = runrecord.StopReason(m.run.stopReason)
	}
	m.report = &r
	m.rendered = m.renderReport()
	frame := downsample(m.frame(), m.profile)
	m.printed = true
	return m, tea.Sequence(tea.Println(frame), tea.Quit)
}

// downsample brings a frame to the terminal's colour profile: bubbletea
// prints lines for the scrollback as given, without the conversion it
// applies to the live screen, so with NO_COLOR the final screen would come
// back coloured. An unknown profile (none detected yet) leaves it as drawn.
func downsample(frame string, p colorprofile.Profile) string {
	if p == colorprofile.Unknown || p == colorprofile.TrueColor {
		return frame
	}
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: p}
	_, _ = io.WriteString(&w, frame) // a strings.Builder never fails a write
	return b.String()
}

func (m Diagnose) plain() bool { return m.width < NarrowWidth }

func (m Diagnose) renderReport() string {
	if m.report == nil || strings.TrimSpace(m.report.Markdown) == "" {
		return ""
	}
	if m.plain() {
		return termsafe.Strip(m.report.Markdown)
	}
	out, err := RenderMarkdown(m.report.Markdown, m.width-2, m.opts.MarkdownStyle)
	if err != nil {
		// Show the answer anyway, and say why it is not formatted.
		return m.st.bad.Render(termsafe.Line(err.Error())) + "\n" + termsafe.Strip(m.report.Markdown)
	}
	return out
}

// View draws the live screen; once the final screen has been printed to the
// scrollback it draws nothing, so the report is not shown twice.
func (m Diagnose) View() tea.View {
	if m.printed {
		return tea.NewView("")
	}
	return tea.NewView(m.frame())
}

// keyHints is the footer of the live screen: the keys that act now.
func (m Diagnose) keyHints() string {
	switch {
	case m.opts.OnCancel == nil:
		return "q or ctrl+c quit"
	case m.cancelling:
		return "cancelling: the run is stored CANCELLED · ctrl+c again quits without waiting"
	}
	return "q or ctrl+c cancel (the run is stored CANCELLED)"
}

// frame is the whole screen at the current width.
func (m Diagnose) frame() string {
	now := m.opts.Now()
	w := m.width
	var b []string
	title := "superbiz diagnose"
	if q := termsafe.Line(m.run.query); q != "" {
		title += " · " + q
	}
	b = append(b, m.st.title.Render(textclip.Width(title, w)))
	b = append(b, m.run.budgetView(m.st, w, m.plain(), now))
	rows := panelLiveRows
	if m.report != nil {
		rows = panelFinalRows
	}
	panel := m.run.panel.view(m.st, w, m.plain(), rows)
	maxSteps := 0
	if m.height > 0 && m.report == nil {
		// Keep the header, the budgets, the timeline panel, the spinner and
		// the key hints on screen.
		budgetH := lipgloss.Height(b[1])
		panelH := 0
		if panel != "" {
			panelH = lipgloss.Height(panel) + 1
		}
		maxSteps = max(m.height-budgetH-panelH-6, 3)
	}
	steps := m.run.timeline(m.st, w, maxSteps)
	if len(steps) > 0 {
		b = append(b, "")
		b = append(b, steps...)
	}
	if panel != "" {
		b = append(b, "", panel)
	}
	if m.report == nil {
		frame := m.spin.View()
		if !m.run.busy() && !m.cancelling {
			frame = ""
		}
		if line := m.run.waitLine(frame, m.cancelling, now); line != "" {
			b = append(b, "", line)
		}
		b = append(b, "", m.st.dim.Render(textclip.Width(m.keyHints(), w)))
		return strings.Join(b, "\n")
	}
	if m.rendered != "" {
		b = append(b, "", m.rendered)
	}
	b = append(b, "", m.st.title.Render(exitLine(m.report.ExitCode, string(m.report.Outcome), string(m.report.StopReason), m.run.runID)))
	return strings.Join(b, "\n")
}
