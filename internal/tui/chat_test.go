package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// recorder keeps what the chat asked of the application.
type recorder struct {
	mu        sync.Mutex
	submitted []string
	cancels   int
	cancelled chan struct{}
}

func newRecorder() *recorder { return &recorder{cancelled: make(chan struct{}, 8)} }

func (r *recorder) submit(text string) {
	r.mu.Lock()
	r.submitted = append(r.submitted, text)
	r.mu.Unlock()
}

func (r *recorder) cancel() {
	r.mu.Lock()
	r.cancels++
	r.mu.Unlock()
	r.cancelled <- struct{}{}
}

func (r *recorder) snapshot() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.submitted...), r.cancels
}

func testChat(r *recorder, w, h int) Chat {
	return NewChat(ChatOptions{
		Width: w, Height: h, Now: fixedNow, Spinner: pinnedSpinner,
		MarkdownStyle: "notty", OnSubmit: r.submit, OnCancel: r.cancel,
	})
}

func enter() tea.KeyPressMsg { return tea.KeyPressMsg{Code: tea.KeyEnter} }

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

func ctrlD() tea.KeyPressMsg { return ctrl('d') }

// typed is a printable key.
func typed(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

const knowledgeMarkdown = "Rotate the Redis password with the `redis-rotate` runbook:\n\n1. Create the new ACL user.\n2. Roll the clients.\n\nSources: runbooks/redis.md"

// TestChatGolden pins the chat at a conversation of two finished turns and
// at a turn in progress with its live budgets.
func TestChatGolden(t *testing.T) {
	t.Run("two_turns", func(t *testing.T) {
		r := newRecorder()
		tm := teatest.NewTestModel(t, testChat(r, 100, 40), teatest.WithInitialTermSize(100, 40))
		tm.Type("order-service payment timeouts since 14:00")
		tm.Send(enter())
		for _, m := range script(phaseStart, phaseMidTool, phaseStop, phaseEnd) {
			tm.Send(m)
		}
		tm.Send(TurnFinishedMsg{Intent: "DIAGNOSIS", Markdown: fallbackMarkdown, Outcome: "FALLBACK", RunID: "r_chat0001"})
		tm.Type("how do I rotate the redis password?")
		tm.Send(enter())
		tm.Send(TurnFinishedMsg{Intent: "KNOWLEDGE_QUERY", Markdown: knowledgeMarkdown, Outcome: "SUCCESS", StopReason: "COMPLETED"})
		tm.Send(ctrlD())
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Chat)
		shows(t, screen(fm.View()), "[KNOWLEDGE_QUERY]")
		got, cancels := r.snapshot()
		want := []string{"order-service payment timeouts since 14:00", "how do I rotate the redis password?"}
		if fmt.Sprint(got) != fmt.Sprint(want) || cancels != 0 {
			t.Fatalf("submitted %q (cancels %d), want %q", got, cancels, want)
		}
		teatest.RequireEqualOutput(t, []byte(screen(fm.View())))
	})
	t.Run("narrow", func(t *testing.T) {
		r := newRecorder()
		tm := teatest.NewTestModel(t, testChat(r, 50, 24), teatest.WithInitialTermSize(50, 24))
		tm.Type("payments slow")
		tm.Send(enter())
		for _, m := range script(phaseStart, phaseMidTool) {
			tm.Send(m)
		}
		if err := tm.Quit(); err != nil {
			t.Fatal(err)
		}
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Chat)
		shows(t, screen(fm.View()), "query_logs  order-service ERROR since… → found")
		if v := screen(fm.View()); strings.Contains(v, "█") || strings.Contains(v, "╭") {
			t.Fatalf("below 60 columns the panel is plain lines:\n%s", v)
		}
		teatest.RequireEqualOutput(t, []byte(screen(fm.View())))
	})
	t.Run("turn_in_progress", func(t *testing.T) {
		r := newRecorder()
		tm := teatest.NewTestModel(t, testChat(r, 100, 40), teatest.WithInitialTermSize(100, 40))
		tm.Send(TurnStartedMsg{Query: "hello"})
		tm.Send(TurnFinishedMsg{Intent: "SYSTEM_CHAT", Markdown: "Hello. Describe an incident and I will look at the evidence.", Outcome: "SUCCESS"})
		tm.Type("order-service payment timeouts since 14:00")
		tm.Send(enter())
		for _, m := range script(phaseStart, phaseMidTool) {
			tm.Send(m)
		}
		tm.Send(EventMsg{Event: phaseStop[0]})
		// Typing while a turn runs is ignored; Enter submits nothing.
		tm.Type("x")
		tm.Send(enter())
		if err := tm.Quit(); err != nil {
			t.Fatal(err)
		}
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Chat)
		shows(t, screen(fm.View()), "waiting for the model")
		if !fm.Running() {
			t.Fatal("the turn is still running")
		}
		if got, _ := r.snapshot(); len(got) != 1 {
			t.Fatalf("submitted %q, want one turn", got)
		}
		teatest.RequireEqualOutput(t, []byte(screen(fm.View())))
	})
}

// TestChatCancel: Esc while a turn runs calls OnCancel once and keeps the
// chat; the turn ends CANCELLED, what it had gathered stays on the screen
// (issue 40 #12: it was lost), and the input takes text again.
func TestChatCancel(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyEscape}, ctrl('c')} {
		t.Run(k.String(), func(t *testing.T) {
			r := newRecorder()
			tm := teatest.NewTestModel(t, testChat(r, 100, 30), teatest.WithInitialTermSize(100, 30))
			tm.Type("payments slow")
			tm.Send(enter())
			for _, m := range script(phaseStart, phaseMidTool) {
				tm.Send(m)
			}
			tm.Send(k)
			tm.Send(k) // a second press while cancelling asks nothing more
			var m tea.Model = testChat(newRecorder(), 100, 30)
			for _, msg := range append([]tea.Msg{TurnStartedMsg{Query: "payments slow"}}, append(script(phaseStart), k)...) {
				m, _ = m.Update(msg)
			}
			shows(t, screen(m.View()), "cancelling…")
			select {
			case <-r.cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("OnCancel was not called")
			}
			tm.Send(EventMsg{Event: harness.RunFinished{Meta: meta(), Lifecycle: runrecord.Cancelled, StopReason: runrecord.StopCancelled, Outcome: "CANCELLED"}})
			tm.Send(TurnFinishedMsg{Intent: "DIAGNOSIS", Markdown: "The run was cancelled.", Outcome: "CANCELLED", StopReason: "CANCELLED", RunID: "r_chat0002"})
			tm.Type("next question")
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Chat)
			if fm.Running() {
				t.Fatal("the cancelled turn must be over")
			}
			if v := fm.input.Value(); v != "next question" {
				t.Fatalf("input = %q, want the text typed after the cancel", v)
			}
			if _, n := r.snapshot(); n != 1 {
				t.Fatalf("OnCancel called %d times, want 1", n)
			}
			// Said once, with the run, and no exit code: chat did not exit.
			if v := screen(fm.View()); !strings.Contains(v, "[DIAGNOSIS] CANCELLED · run r_chat0002") || strings.Contains(v, "exit 130") || strings.Contains(v, "CANCELLED · CANCELLED") {
				t.Fatalf("the cancelled turn is not shown as \"CANCELLED · run r_chat0002\":\n%s", v)
			}
			v := screen(fm.View())
			for _, want := range []string{"gathered before the turn ended (superbiz runs show r_chat0002):", "↳ query_logs  order-service ERROR since 1h → EVIDENCE_FOUND · 412 matched", "1 of 1 tool call had gathered evidence"} {
				if !strings.Contains(v, want) {
					t.Errorf("the cancelled turn does not keep %q:\n%s", want, v)
				}
			}
		})
	}
}

// TestChatKeys drives the idle keys without a program: Ctrl-C clears the
// line, Ctrl-D deletes on a non-empty line and quits on an empty one.
func TestChatKeys(t *testing.T) {
	m := testChat(newRecorder(), 80, 20)
	step := func(msg tea.Msg) tea.Cmd {
		nm, cmd := m.Update(msg)
		m = nm.(Chat)
		return cmd
	}
	for _, r := range "abc" {
		step(typed(r))
	}
	step(ctrl('c'))
	if v := m.input.Value(); v != "" {
		t.Fatalf("ctrl+c idle must clear the input, got %q", v)
	}
	step(typed('x'))
	step(tea.KeyPressMsg{Code: tea.KeyHome})
	if cmd := step(ctrlD()); cmd != nil && isQuit(cmd) {
		t.Fatal("ctrl+d on a non-empty line must not quit")
	}
	if v := m.input.Value(); v != "" {
		t.Fatalf("ctrl+d must delete the character under the cursor, got %q", v)
	}
	if cmd := step(ctrlD()); cmd == nil || !isQuit(cmd) {
		t.Fatal("ctrl+d on an empty line must quit")
	}
	if cmd := step(enter()); cmd != nil {
		t.Fatal("enter on an empty line must submit nothing")
	}
	// Ctrl-C at an idle, empty prompt says how to quit; a second in a row quits.
	if cmd := step(ctrl('c')); cmd != nil && isQuit(cmd) {
		t.Fatal("a first ctrl+c at an empty prompt must not quit")
	}
	if !strings.Contains(screen(m.View()), "ctrl+d quits (or ctrl+c again)") {
		t.Fatalf("no quit hint after ctrl+c:\n%s", screen(m.View()))
	}
	step(typed('y'))
	if strings.Contains(screen(m.View()), "ctrl+c again") {
		t.Fatal("the hint must go with the next key")
	}
	step(ctrl('c')) // clears "y"
	step(ctrl('c')) // hint
	if cmd := step(ctrl('c')); cmd == nil || !isQuit(cmd) {
		t.Fatal("a second ctrl+c in a row at an empty prompt must quit")
	}
}

// A bracketed paste lands on the input line (newlines as spaces) when the
// chat is idle, and is ignored while a turn runs, like typed keys.
func TestChatPaste(t *testing.T) {
	m := testChat(newRecorder(), 80, 20)
	nm, _ := m.Update(tea.PasteMsg{Content: "payments slow\nsince 14:00"})
	m = nm.(Chat)
	if got := m.input.Value(); got != "payments slow since 14:00" {
		t.Fatalf("after a paste the input is %q", got)
	}
	nm, _ = m.Update(enter())
	nm, _ = nm.Update(tea.PasteMsg{Content: "more"})
	if got := nm.(Chat).input.Value(); got != "" {
		t.Fatalf("a paste while the turn runs reached the input: %q", got)
	}
}

// The session's stored turns (chat --continue) are shown above the prompt
// with their outcomes.
func TestChatPastTurns(t *testing.T) {
	o := testChat(newRecorder(), 90, 20).opts
	o.Past = []PastTurn{
		{Query: "hello", Finished: TurnFinishedMsg{Intent: "SYSTEM_CHAT", Markdown: "Hi, ask me about an incident.", Outcome: "SUCCESS", RunID: "r_past0001"}},
		{Query: "payments slow", Finished: TurnFinishedMsg{Intent: "DIAGNOSIS", Markdown: "No conclusion.", Outcome: "FALLBACK", StopReason: "INFORMATION_SATURATED", RunID: "r_past0002"}},
	}
	v := screen(NewChat(o).View())
	for _, want := range []string{"› hello", "[SYSTEM_CHAT] SUCCESS · run r_past0001", "Hi, ask me about an incident.", "› payments slow", "[DIAGNOSIS] FALLBACK · INFORMATION_SATURATED · run r_past0002", "No conclusion."} {
		if !strings.Contains(v, want) {
			t.Errorf("past turns: view lacks %q:\n%s", want, v)
		}
	}
	if strings.Index(v, "› hello") > strings.Index(v, "› payments slow") {
		t.Errorf("past turns are not oldest first:\n%s", v)
	}
}

func isQuit(cmd tea.Cmd) bool {
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// TestChatScroll fills a short terminal with turns, pages up, and pins what
// is visible; the view keeps the reader's place while new turns arrive only
// when they were at the end.
func TestChatScroll(t *testing.T) {
	r := newRecorder()
	tm := teatest.NewTestModel(t, testChat(r, 70, 16), teatest.WithInitialTermSize(70, 16))
	for i := 1; i <= 6; i++ {
		tm.Type(fmt.Sprintf("question %d", i))
		tm.Send(enter())
		tm.Send(TurnFinishedMsg{Intent: "SYSTEM_CHAT", Markdown: fmt.Sprintf("Answer number %d.\n\nA second paragraph.", i), Outcome: "SUCCESS"})
	}
	tm.Send(tea.KeyPressMsg{Code: tea.KeyPgUp})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyPgUp})
	tm.Send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Chat)
	if fm.vp.AtBottom() || fm.vp.AtTop() {
		t.Fatalf("after two pages up and a wheel step the view is mid-way, offset %d of %d lines", fm.vp.YOffset(), fm.vp.TotalLineCount())
	}
	teatest.RequireEqualOutput(t, []byte(screen(fm.View())))
}

// The demo's suggestion: the intro heads the empty conversation, Tab or ↑
// puts the question on an empty line (never over typed text), and once a
// turn exists ↑ scrolls again instead.
func TestChatSuggestion(t *testing.T) {
	const q = "payment timeouts on order-service since 14:00"
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyTab}, {Code: tea.KeyUp}} {
		m := NewChat(ChatOptions{Width: 80, Height: 20, Intro: "Demo: this chat is scripted.", Suggestion: q})
		if v := screen(m.View()); !strings.Contains(v, "Demo: this chat is scripted.") || !strings.Contains(v, "tab fills the demo question") {
			t.Fatalf("the first screen lacks the intro or the hint:\n%s", v)
		}
		nm, _ := m.Update(k)
		m = nm.(Chat)
		if got := m.input.Value(); got != q {
			t.Errorf("%s on an empty line: input %q, want the suggestion", k, got)
		}
		m.input.SetValue("typed")
		nm, _ = m.Update(k)
		if got := nm.(Chat).input.Value(); got != "typed" {
			t.Errorf("%s over typed text: input %q, want it kept", k, got)
		}
	}
	m := NewChat(ChatOptions{Width: 80, Height: 20, Suggestion: q, Past: []PastTurn{{Query: "hello", Finished: TurnFinishedMsg{Markdown: "hi"}}}})
	nm, _ := m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	if got := nm.(Chat).input.Value(); got != "" {
		t.Errorf("↑ after a turn fills the input with %q; it scrolls", got)
	}
}
