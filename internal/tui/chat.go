package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// TurnStartedMsg tells the chat a turn began (cmd sends it when it starts
// the run; a turn the user submitted from the input line is already shown).
type TurnStartedMsg struct{ Query string }

// TurnFinishedMsg ends the turn in progress with its routed intent and its
// answer; the chat then takes input again.
type TurnFinishedMsg struct {
	Intent     string // SYSTEM_CHAT, KNOWLEDGE_QUERY, DIAGNOSIS ("" when routing failed)
	Markdown   string
	Outcome    runrecord.Outcome
	StopReason runrecord.StopReason
	RunID      string // the stored run ("" when none was stored, e.g. a local command)
}

// ChatOptions configures the chat view; like DiagnoseOptions it holds all
// that would make frames differ between runs.
type ChatOptions struct {
	Width, Height int
	Now           func() time.Time
	Spinner       spinner.Spinner
	// MarkdownStyle is the Markdown style of the answers (see MarkdownStyle;
	// "": notty); a colour style follows the terminal's background once it
	// answers (see backgroundStyle).
	MarkdownStyle string
	// CharLimit bounds the input line in characters (0: 4096, the default
	// query limit).
	CharLimit int
	// OnSubmit starts a turn for text; it runs as a command (its own
	// goroutine), so it may block until the turn is over.
	OnSubmit func(text string)
	// OnCancel cancels the turn in progress (stored CANCELLED); the chat stays.
	OnCancel func()
	// Past are the session's turns stored before the screen opened (chat
	// --continue or --session), shown above the prompt, oldest first.
	Past []PastTurn
	// Intro, when set, heads the conversation instead of the usual one-line
	// hint (chat --demo says there that the chat is scripted).
	Intro string
	// Suggestion, when set, is the message Tab (or ↑ before the first turn)
	// puts on an empty input line, shown as the line's placeholder (chat
	// --demo's one working question).
	Suggestion string
	// ModelWait is the spinner row's text while a model call runs ("":
	// "waiting for the model…").
	ModelWait string
}

// PastTurn is one stored turn of the session: its message and how it ended.
type PastTurn struct {
	Query    string
	Finished TurnFinishedMsg
}

// chatTurn is one exchange of the conversation.
type chatTurn struct {
	query      string
	done       bool
	intent     string
	markdown   string
	outcome    string
	stopReason string
	runID      string
	rendered   string // markdown rendered at renderedW
	renderedW  int
	// steps are the tool calls (and the end) of a cancelled or failed turn,
	// kept from its live panel: what it had gathered stays on the screen,
	// as diagnose keeps it (a fallback's answer lists what was checked).
	steps []step
	// timeline is the turn's incident timeline (its latest build_timeline
	// call), kept under the answer as diagnose's final screen keeps it;
	// nil when the turn built none.
	timeline *timelinePanel
}

// Chat is the bubbletea model of `superbiz chat`: the conversation in a
// scrollable viewport, the live budgets and steps of the turn in progress,
// and an input line. Esc or Ctrl-C cancels the running turn without leaving;
// Ctrl-D on an empty line quits.
type Chat struct {
	opts       ChatOptions
	st         styles
	spin       spinner.Model
	input      textinput.Model
	vp         viewport.Model
	width      int
	height     int
	turns      []chatTurn
	run        runState
	running    bool
	cancelling bool
	// interrupted is a Ctrl-C at an idle, empty prompt: the help line says
	// how to quit, and a second Ctrl-C in a row quits.
	interrupted bool
}

// chatPanelSteps bounds the timeline of the turn in progress so the
// conversation keeps most of the screen.
const chatPanelSteps = 6

// chatMinSteps and chatMinConversation are what the live panel keeps on a
// short screen when a timeline panel needs room: that many steps, and that
// many rows of the conversation.
const (
	chatMinSteps        = 3
	chatMinConversation = 3
)

// NewChat builds the chat view.
func NewChat(o ChatOptions) Chat {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Spinner.Frames == nil {
		o.Spinner = spinner.Dot
	}
	if o.CharLimit <= 0 {
		o.CharLimit = 4096
	}
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "describe the problem, or ask about a runbook"
	if o.Suggestion != "" {
		in.Placeholder = o.Suggestion + "  (tab)"
	}
	in.CharLimit = o.CharLimit
	inStyles := textinput.DefaultDarkStyles()
	inStyles.Cursor.Blink = false
	in.SetStyles(inStyles)
	in.Focus()
	vp := viewport.New()
	vp.MouseWheelEnabled = true
	vp.KeyMap = viewport.KeyMap{
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
		PageUp:   key.NewBinding(key.WithKeys("pgup")),
		Down:     key.NewBinding(key.WithKeys("down")),
		Up:       key.NewBinding(key.WithKeys("up")),
	}
	m := Chat{
		opts: o, st: newStyles(),
		spin:  spinner.New(spinner.WithSpinner(o.Spinner)),
		input: in, vp: vp,
		width: o.Width, height: o.Height,
	}
	if m.width <= 0 {
		m.width = defaultWidth
	}
	if m.height <= 0 {
		m.height = 24
	}
	for _, p := range o.Past {
		m.turns = append(m.turns, chatTurn{query: p.Query})
		m.file(p.Finished)
	}
	m.layout(true)
	return m
}

// Init starts the spinner and the countdown, and asks the terminal for its
// background when the answers are drawn in colour.
func (m Chat) Init() tea.Cmd {
	return tea.Batch(m.spin.Tick, tick(), askBackground(m.opts.MarkdownStyle))
}

// Running reports whether a turn is in progress (cmd cancels it on exit).
func (m Chat) Running() bool { return m.running }

// Update folds keys, mouse, size, events and turn messages into the model.
func (m Chat) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout(false)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		// A bracketed paste is typed text (v1 sent it as keys).
		m.interrupted = false
		if m.running {
			return m, nil // input is disabled while a turn runs
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	case tea.MouseWheelMsg:
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(msg)
		return m, cmd
	case tea.BackgroundColorMsg:
		if style := backgroundStyle(m.opts.MarkdownStyle, msg); style != m.opts.MarkdownStyle {
			m.opts.MarkdownStyle = style
			for i := range m.turns {
				m.turns[i].renderedW = 0 // drawn again in the new style
			}
			m.layout(false)
		}
	case TurnStartedMsg:
		if len(m.turns) == 0 || m.turns[len(m.turns)-1].done {
			m.turns = append(m.turns, chatTurn{query: msg.Query})
		}
		m.begin(msg.Query)
		m.layout(true)
	case EventMsg:
		return m.event(msg.Event)
	case harness.Event:
		return m.event(msg)
	case TurnFinishedMsg:
		m.end(msg)
		m.layout(true)
		return m, m.input.Focus()
	case tickMsg:
		// The panel's time left is drawn by View; nothing else moves.
		return m, tick()
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m Chat) event(ev harness.Event) (tea.Model, tea.Cmd) {
	if !m.running {
		return m, nil // a late event of a turn already ended
	}
	m.run.apply(ev, m.opts.Now())
	m.layout(false)
	return m, nil
}

func (m Chat) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	interrupted := m.interrupted
	m.interrupted = false
	switch k.String() {
	case "ctrl+d":
		if m.input.Value() != "" {
			break
		}
		if m.running && !m.cancelling && m.opts.OnCancel != nil {
			return m, tea.Sequence(m.cancelCmd(), tea.Quit)
		}
		return m, tea.Quit
	case "ctrl+c", "esc":
		if m.running {
			if m.cancelling || m.opts.OnCancel == nil {
				return m, nil
			}
			m.cancelling = true
			m.layout(false)
			return m, m.cancelCmd()
		}
		if k.String() != "ctrl+c" {
			return m, nil
		}
		switch {
		case m.input.Value() != "":
			m.input.Reset()
		case interrupted:
			return m, tea.Quit
		default:
			m.interrupted = true
		}
		return m, nil
	case "tab", "up":
		// Tab, or ↑ before the first turn (when there is nothing to scroll),
		// puts the suggestion on an empty input line, as a shell's history.
		if m.opts.Suggestion != "" && !m.running && m.input.Value() == "" && (k.String() == "tab" || len(m.turns) == 0) {
			m.input.SetValue(m.opts.Suggestion)
			m.input.CursorEnd()
			return m, nil
		}
		if k.String() == "tab" {
			return m, nil
		}
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(k)
		return m, cmd
	case "pgup", "pgdown", "down":
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(k)
		return m, cmd
	case "enter":
		text := strings.TrimSpace(m.input.Value())
		if m.running || text == "" {
			return m, nil
		}
		m.turns = append(m.turns, chatTurn{query: text})
		m.begin(text)
		m.input.Reset()
		m.layout(true)
		submit := m.opts.OnSubmit
		if submit == nil {
			return m, nil
		}
		return m, func() tea.Msg { submit(text); return nil }
	}
	if m.running {
		return m, nil // input is disabled while a turn runs
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

func (m Chat) cancelCmd() tea.Cmd {
	cancel := m.opts.OnCancel
	return func() tea.Msg { cancel(); return nil }
}

// begin resets the live panel for a new turn and disables the input.
func (m *Chat) begin(query string) {
	m.run = runState{query: query, modelWait: m.opts.ModelWait}
	m.running, m.cancelling = true, false
	m.input.Blur()
}

// end files the answer into the turn in progress and ends it.
func (m *Chat) end(f TurnFinishedMsg) {
	if len(m.turns) == 0 || m.turns[len(m.turns)-1].done {
		m.turns = append(m.turns, chatTurn{})
	}
	m.file(f)
	m.running, m.cancelling = false, false
	m.run = runState{}
}

// file writes f into the last turn.
func (m *Chat) file(f TurnFinishedMsg) {
	t := &m.turns[len(m.turns)-1]
	t.done, t.intent, t.markdown, t.outcome, t.runID = true, f.Intent, f.Markdown, string(f.Outcome), f.RunID
	t.stopReason = string(f.StopReason)
	if t.stopReason == "" {
		t.stopReason = m.run.stopReason
	}
	if t.outcome == string(runrecord.OutcomeCancelled) || t.outcome == string(runrecord.OutcomeFailed) {
		t.steps = keptSteps(m.run.steps)
	}
	t.timeline = m.run.panel
}

// keptSteps are the tool calls and the end of a turn's steps, or none when
// it made no tool call.
func keptSteps(steps []step) []step {
	var kept []step
	calls := 0
	for _, sp := range steps {
		switch sp.kind {
		case stepTool:
			calls++
			kept = append(kept, sp)
		case stepFinish, stepStop:
			kept = append(kept, sp)
		}
	}
	if calls == 0 {
		return nil
	}
	return kept
}

func (m Chat) plain() bool { return m.width < NarrowWidth }

// layout re-renders the conversation for the current width and sizes the
// viewport around the panel and the input; bottom scrolls to the end (new
// content), otherwise the reader's position is kept unless they were at the
// end already.
func (m *Chat) layout(bottom bool) {
	atBottom := m.vp.AtBottom()
	m.input.SetWidth(max(m.width-ansi.StringWidth(m.input.Prompt)-1, 1))
	m.vp.SetWidth(m.width)
	panelH := 0
	if p := m.panel(); p != "" {
		panelH = lipgloss.Height(p)
	}
	m.vp.SetHeight(max(m.height-3-panelH, 1))
	m.vp.SetContent(m.conversation())
	if bottom || atBottom {
		m.vp.GotoBottom()
	}
}

// conversation renders every turn, caching each answer for the width.
func (m *Chat) conversation() string {
	var b []string
	if m.opts.Intro != "" {
		// Wrapped, not cut: every word of the notice matters.
		b = append(b, m.st.warn.Width(m.width).Render(termsafe.Strip(m.opts.Intro)), "")
	} else if len(m.turns) == 0 {
		return m.st.dim.Render("Ask about an incident (routed to a diagnosis), a runbook, or superbiz itself.")
	}
	for i := range m.turns {
		t := &m.turns[i]
		b = append(b, m.st.user.Render(textclip.Width("› "+termsafe.Line(t.query), m.width)))
		if !t.done {
			continue
		}
		head := []string{}
		if t.intent != "" {
			head = append(head, m.st.badge.Render("["+termsafe.Line(t.intent)+"]"))
		}
		// No exit code (chat did not exit), and a SUCCESS needs no reason.
		reason := t.stopReason
		if t.outcome == string(runrecord.OutcomeSuccess) {
			reason = ""
		}
		status := statusWords(t.outcome, reason)
		if id := termsafe.Line(t.runID); id != "" {
			status = strings.TrimPrefix(status+" · run "+id, " · ")
		}
		if status != "" {
			head = append(head, m.st.dim.Render(status))
		}
		if len(head) > 0 {
			b = append(b, strings.Join(head, " "))
		}
		if t.renderedW != m.width {
			t.rendered, t.renderedW = m.renderAnswer(t.markdown), m.width
		}
		if t.rendered != "" {
			b = append(b, t.rendered)
		}
		if tl := t.timeline.view(m.st, m.width, m.plain(), panelFinalRows); tl != "" {
			b = append(b, tl)
		}
		if len(t.steps) > 0 {
			head := "gathered before the turn ended"
			if id := termsafe.Line(t.runID); id != "" {
				head += " (superbiz runs show " + id + ")"
			}
			b = append(b, m.st.dim.Render(textclip.Width(head+":", m.width)))
			for _, sp := range t.steps {
				b = append(b, stepLine(m.st, sp, m.width))
			}
		}
		b = append(b, "")
	}
	return strings.TrimRight(strings.Join(b, "\n"), "\n")
}

func (m *Chat) renderAnswer(md string) string {
	if strings.TrimSpace(md) == "" {
		return ""
	}
	if m.plain() {
		return termsafe.Strip(md)
	}
	out, err := RenderMarkdown(md, m.width-2, m.opts.MarkdownStyle)
	if err != nil {
		return m.st.bad.Render(termsafe.Line(err.Error())) + "\n" + termsafe.Strip(md)
	}
	return out
}

// panel is the live budgets, recent steps, the timeline panel of a
// build_timeline call (timelinepanel.go, as diagnose draws it) and the
// spinner of the turn in progress. On a short screen the steps give way to
// the timeline down to chatMinSteps, then the timeline's rows, so that the
// conversation keeps chatMinConversation rows.
func (m Chat) panel() string {
	if !m.running {
		return ""
	}
	now := m.opts.Now()
	budget := m.run.budgetView(m.st, m.width, m.plain(), now)
	frame := m.spin.View()
	wait := m.run.waitLine(frame, m.cancelling, now)
	if wait == "" {
		wait = frame + "working…"
	}
	// the title, the input line and the help line are the screen's own
	room := m.height - 3 - chatMinConversation - lipgloss.Height(budget) - 1
	steps, tl := m.run.timeline(m.st, m.width, chatPanelSteps), ""
	for rows := panelLiveRows; rows >= 0; rows-- {
		tl = m.run.panel.view(m.st, m.width, m.plain(), rows)
		if tl == "" || lipgloss.Height(tl)+min(len(steps), chatMinSteps) <= room {
			break
		}
	}
	if tl != "" {
		steps = m.run.timeline(m.st, m.width, min(max(room-lipgloss.Height(tl), chatMinSteps), chatPanelSteps))
	}
	b := append([]string{budget}, steps...)
	if tl != "" {
		b = append(b, tl)
	}
	return strings.Join(append(b, wait), "\n")
}

// View is the full-screen chat (alternate screen, mouse wheel scrolling).
func (m Chat) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

// screen draws the title, the conversation, the live panel and the input.
func (m Chat) screen() string {
	b := []string{m.st.title.Render("superbiz chat")}
	b = append(b, m.vp.View())
	if p := m.panel(); p != "" {
		b = append(b, p)
	}
	if m.running {
		b = append(b, m.st.dim.Render(textclip.Width(m.input.Prompt+"(answering — input is back when the turn ends)", m.width)))
	} else {
		b = append(b, m.input.View())
	}
	help := "enter send · /help · pgup/pgdn scroll · ctrl+d quit"
	if m.opts.Suggestion != "" && m.input.Value() == "" {
		help = "tab fills the demo question · enter send · /help · ctrl+d quit"
	}
	if m.interrupted {
		help = "ctrl+d quits (or ctrl+c again) · enter send · /help"
	}
	if m.running {
		help = "esc cancel turn · pgup/pgdn scroll · ctrl+d quit"
	}
	b = append(b, m.st.dim.Render(textclip.Width(help, m.width)))
	return strings.Join(b, "\n")
}
