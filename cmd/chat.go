package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"

	"github.com/superbiz/superbiz/internal/usecase"
)

// chatOptions are what `superbiz chat` was given, the global flags
// included.
type chatOptions struct {
	globalOptions
	Session  string
	Continue bool
}

// newChatCmd is `superbiz chat`; runF replaces runChat (tests), nil runs it.
func (a *app) newChatCmd(runF func(context.Context, *chatOptions) error) *cobra.Command {
	opts := &chatOptions{}
	c := &cobra.Command{
		Use:   "chat",
		Short: "Chat: every message is routed to small talk, a runbook answer or a diagnosis",
		Long: `chat keeps one session; every message is one stored run that the intent router
sends to exactly one executor: SYSTEM_CHAT (a short answer), KNOWLEDGE_QUERY
(one runbook lookup and an answer that cites its documents) or DIAGNOSIS (the
diagnosis agent and release, with the session's last released diagnosis as
context). On a terminal it is a full-screen chat (Esc or Ctrl-C cancels the
running turn, Ctrl-D on an empty line quits); otherwise it reads one message
per line from stdin and prints one answer per message (JSON lines with -o json).
A message "/alert NAME" (or "/alert FINGERPRINT") is a diagnosis started from
that firing alert of [alerts] url, as "diagnose --alert".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.globalOptions = a.flags.options(cmd)
			return runWith(cmd.Context(), opts, runF, a.runChat)
		},
	}
	c.Flags().StringVar(&opts.Session, "session", "", "continue this session")
	c.Flags().BoolVar(&opts.Continue, "continue", false, "continue the most recent session")
	c.MarkFlagsMutuallyExclusive("session", "continue")
	return c
}

// runChat holds one chat session: full screen on a terminal, else one
// message per input line.
func (a *app) runChat(ctx context.Context, opts *chatOptions) error {
	g, session, cont := opts.globalOptions, opts.Session, opts.Continue
	w, err := a.openWorkspaceOf(ctx, g)
	if err != nil {
		return err
	}
	defer w.Close()
	cfg := w.Config
	if session != "" {
		if session, err = runview.ResolveSession(ctx, w.Store, session, true); err != nil {
			return err
		}
	}
	if err := a.noteFreshSession(ctx, w, cont); err != nil {
		return storeFailure(cfg.DBPath, err)
	}
	d := w.Deps()
	useTUI := a.io.InTTY && a.io.ErrTTY && !g.NoTUI
	var intro string
	if g.Demo {
		if why := w.ModelUnusable(ctx); why != "" {
			// The demo covers chat too: the scripted router and answers.
			d.Model, d.ModelName = demo.NewChat(a.demoPace(useTUI, g.Output)), demo.TranscriptNote
			if useTUI {
				// Said on the screen itself, before anything is typed.
				intro = demo.ChatIntro(why)
			} else {
				_ = a.io.ErrOut.Printf("superbiz: model: %s (%s); it diagnoses %q only\n", demo.TranscriptNote, why, demo.Query)
			}
		}
	}
	if useTUI {
		return storeFailure(cfg.DBPath, a.chatTUI(ctx, d, cfg, session, cont, intro, g))
	}
	return storeFailure(cfg.DBPath, a.chatLines(ctx, d, cfg, session, cont, g.Output))
}

// demoOnly is text when a demo transcript plays, else "".
func demoOnly(playing bool, text string) string {
	if playing {
		return text
	}
	return ""
}

// chatSession remembers the session across turns and cancels the turn in
// progress; safe from the UI and the engine goroutines.
type chatSession struct {
	mu      sync.Mutex
	id      string
	cont    bool
	cancel  func()
	running bool
}

// Started is each request's OnStart: the first turn fixes the session.
func (s *chatSession) Started(sessionID, _ string, cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id, s.cont, s.cancel, s.running = sessionID, false, cancel, true
}

func (s *chatSession) request(query string) usecase.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return usecase.ChatRequest{Query: query, SessionID: s.id, Continue: s.cont && s.id == "", OnStart: s.Started}
}

// current is the session of the chat so far ("" before its first turn).
func (s *chatSession) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

func (s *chatSession) done() {
	s.mu.Lock()
	s.cancel, s.running = nil, false
	s.mu.Unlock()
}

// Cancel cancels the running turn, if any.
func (s *chatSession) Cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// chatLines is line mode: one message per input line, one answer per
// message (JSON lines with -o json).
func (a *app) chatLines(ctx context.Context, d *usecase.Deps, cfg *config.Config, session string, cont bool, output outputFormat) error {
	d.Events = &tui.LinePrinter{W: a.io.ErrOut}
	s := &chatSession{id: session, cont: cont}
	worst := ExitOK
	var modelErr *model.Error // the last model failure, for the hint
	sc := bufio.NewScanner(a.io.In)
	sc.Buffer(make([]byte, 64*1024), maxStdinQuery)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		r, local, err := chatLocal(ctx, d.Store, s.current(), line)
		if err != nil {
			return err
		}
		if local {
			if r.quit {
				break
			}
			if err := a.printLocal(line, r.markdown, output); err != nil {
				return err
			}
			continue
		}
		out, err := d.Chat(ctx, s.request(line))
		s.done()
		if alertErr := (*usecase.AlertError)(nil); errors.As(err, &alertErr) {
			// No run was stored: the message names no readable firing alert.
			_ = a.io.ErrOut.Printf("superbiz: %s: %v\n", usecase.AlertCommand, alertErr.Err)
			if code, _ := exitCode(alertErr.Err); code == ExitCancelled {
				return alertErr.Err
			}
			worst = max(worst, ExitFailed)
			continue
		}
		if out.Note != nil {
			_ = a.io.ErrOut.Printf("superbiz: %s\n", *out.Note)
		}
		if err != nil {
			return err
		}
		if err := a.printChatTurn(out, output); err != nil {
			return err
		}
		if outcomeExit(out) == ExitCancelled {
			return cancelled("the turn")
		}
		worst = max(worst, chatExit(out))
		if out.ModelError != nil {
			modelErr = out.ModelError
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("a message on stdin has more than %d bytes (1 MiB), the most that is read; a message may have at most %d bytes (limits.query)", maxStdinQuery, cfg.Limits.Query)}
		}
		return fmt.Errorf("read messages from stdin: %w", err)
	}
	if ctx.Err() != nil {
		return cancelled("")
	}
	switch worst {
	case ExitOK:
		return nil
	case ExitUnavailable:
		return &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("the model could not answer\n%s", modelHint(cfg, modelErr))}
	}
	return &ExitError{Code: worst}
}

// chatExit grades one turn for line mode's exit code
// (docs/SPEC.md#superbiz-chat) from the run's own exit (outcomeExit): an
// honest fallback counts as answered and a rejected message as failed, so
// a turn is 0, 4 (the model, or the router, could not answer) or 1.
func chatExit(out usecase.Output) int {
	switch code := outcomeExit(out); code {
	case ExitFallback:
		return ExitOK
	case ExitUsage:
		return ExitFailed
	default:
		return code
	}
}

// printChatTurn prints one answer: a JSON line, or Markdown with its intent.
func (a *app) printChatTurn(out usecase.Output, output outputFormat) error {
	if output == outputJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encode answer: %w", err)
		}
		err = a.io.Out.Printf("%s\n", b)
		return err
	}
	intent := out.Intent
	if intent == "" {
		intent = "UNROUTED"
	}
	answer := strings.TrimRight(termsafe.Strip(out.Answer), "\n")
	if output == outputText && a.io.OutTTY {
		// A person reads the conversation left in the scrollback: render the
		// Markdown for the terminal, as diagnose does, rather than leave
		// "##" markers and lines the terminal wraps mid-word.
		if r, err := tui.RenderMarkdown(answer, a.outputWidth(), tui.MarkdownStyle(a.io.Color, a.io.DarkBackground())); err == nil {
			answer = strings.TrimRight(r, "\n")
		}
	}
	if (out.ReleaseOutcome == runrecord.OutcomeCancelled || out.ReleaseOutcome == runrecord.OutcomeFailed) && out.RunID != "" && out.Usage.ToolCalls > 0 {
		// what the turn gathered before it ended is stored with the run
		answer += fmt.Sprintf("\n\n%d tool call(s) before it ended: superbiz runs show %s", out.Usage.ToolCalls, out.RunID)
	}
	err := a.io.Out.Printf("[%s] %s · run %s\n\n%s\n\n", intent, outcomeWord(out), out.RunID, answer)
	return err
}

// printLocal prints a chat command's answer: a JSON line {"command",
// "answer"} with -o json, else the text and a blank line.
func (a *app) printLocal(command, markdown string, output outputFormat) error {
	if output == outputJSON {
		b, err := json.Marshal(struct {
			Command string `json:"command"`
			Answer  string `json:"answer"`
		}{strings.TrimSpace(command), markdown})
		if err != nil {
			return fmt.Errorf("encode answer: %w", err)
		}
		err = a.io.Out.Printf("%s\n", b)
		return err
	}
	err := a.io.Out.Printf("%s\n\n", markdown)
	return err
}

// turnGate lets the chat screen wait for the turn in progress to be
// stored before the process exits, and refuses turns once it is closed.
type turnGate struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// enter registers a starting turn; false once the gate is closed.
func (g *turnGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

// leave marks the turn stored.
func (g *turnGate) leave() { g.wg.Done() }

// closeAndWait refuses new turns and waits for the running one.
func (g *turnGate) closeAndWait() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}

// chatTUI is the full-screen chat on stderr.
// intro, when set, is the demo's notice, shown at the top of the screen with
// the demo question one Tab away.
func (a *app) chatTUI(ctx context.Context, d *usecase.Deps, cfg *config.Config, session string, cont bool, intro string, g globalOptions) error {
	s := &chatSession{id: session, cont: cont}
	var sink *tui.EventSink
	var storeErr error
	var errMu sync.Mutex
	var turns turnGate  // the turn in progress, stored before exit
	var said []chatSaid // the conversation, printed when the screen closes
	var p *tea.Program
	resumed, past, err := sessionPast(ctx, d.Store, session, cont)
	if err != nil {
		return err
	}
	view := tui.NewChat(tui.ChatOptions{
		Past: past,
		// The view asks the terminal for its background when it starts.
		MarkdownStyle: tui.MarkdownStyle(a.io.Color, a.io.DarkBackground()),
		CharLimit:     d.Limits.Query,
		Intro:         intro,
		Suggestion:    demoOnly(intro != "", demo.Query),
		ModelWait:     demoOnly(intro != "", demo.PlayingNote),
		OnSubmit: func(text string) {
			if !turns.enter() {
				return // the screen is gone: no new turn starts
			}
			defer turns.leave()
			if r, local, err := chatLocal(ctx, d.Store, s.current(), text); local || err != nil {
				if err != nil {
					r.markdown = "**Error:** " + termsafe.Strip(err.Error())
				}
				if r.quit {
					p.Quit()
					return
				}
				sink.Post(tui.TurnFinishedMsg{Markdown: r.markdown})
				return
			}
			out, err := d.Chat(ctx, s.request(text))
			s.done()
			if alertErr := (*usecase.AlertError)(nil); errors.As(err, &alertErr) {
				sink.Post(tui.TurnFinishedMsg{Intent: "", Markdown: "**" + usecase.AlertCommand + ":** " + termsafe.Strip(alertErr.Err.Error()), Outcome: runrecord.OutcomeFailed})
				return
			}
			if out.Note != nil {
				out.Answer = "_" + *out.Note + "_\n\n" + out.Answer
			}
			if err != nil {
				errMu.Lock()
				storeErr = err
				errMu.Unlock()
				sink.Post(tui.TurnFinishedMsg{Intent: "", Markdown: "**Error:** " + termsafe.Strip(err.Error()), Outcome: runrecord.OutcomeFailed})
				return
			}
			errMu.Lock()
			said = append(said, chatSaid{query: text, out: out})
			errMu.Unlock()
			sink.Post(tui.TurnFinishedMsg{Intent: out.Intent, Markdown: out.Answer, Outcome: out.ReleaseOutcome, StopReason: out.StopReason, RunID: out.RunID})
		},
		OnCancel: s.Cancel,
	})
	// A stop signal (ctx) ends the screen; signals are ours alone, so the
	// running turn is cancelled through ctx and stored before the exit.
	// The view declares the alternate screen and the mouse.
	p = tea.NewProgram(view, tea.WithOutput(a.io.ErrOut.Screen()), tea.WithInput(a.io.In), tea.WithContext(ctx), tea.WithoutSignalHandler())
	sink = tui.NewEventSink(p)
	d.Events = sink
	_, err = p.Run()
	s.Cancel()
	turns.closeAndWait()
	errMu.Lock()
	shown := s.current()
	if shown == "" && len(past) > 0 {
		shown = resumed // resumed, but nothing said this time
	}
	printErr := a.printConversation(said, shown, g)
	errMu.Unlock()
	if printErr != nil {
		return printErr
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = sink.Close(closeCtx)
	cancel()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("chat screen: %w", err)
	}
	errMu.Lock()
	defer errMu.Unlock()
	if storeErr != nil {
		return storeErr
	}
	if ctx.Err() != nil {
		return cancelled("a turn in progress")
	}
	return nil
}
