package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// chatHelp is /help's answer: the commands chat handles itself, never sent
// to the model, and how to quit.
const chatHelp = `Commands (handled here, never sent to the model):

- ` + "`/help`" + ` this list
- ` + "`/runs`" + ` the runs of this session, newest first
- ` + "`/alert NAME`" + ` (or a fingerprint) diagnose that firing alert of [alerts] url
- ` + "`/quit`" + ` leave (Ctrl-D on an empty line does too)

Anything else is routed to small talk, a runbook answer or a diagnosis.`

// chatSessionRuns bounds /runs and the past turns shown on resuming.
const chatSessionRuns = 20

// slashWord is the command word of a message "/word [arguments]" (ASCII
// letters only, so a path such as "/var/log is full" is a message).
func slashWord(msg string) (string, bool) {
	f := strings.Fields(msg)
	if len(f) == 0 || len(f[0]) < 2 || f[0][0] != '/' {
		return "", false
	}
	for _, c := range f[0][1:] {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return "", false
		}
	}
	return f[0], true
}

// localReply is a chat command's answer; quit ends the chat.
type localReply struct {
	markdown string
	quit     bool
}

// chatLocal answers the commands chat handles itself; ok is false for a
// message that goes to the chat use case (the router, or /alert).
func chatLocal(ctx context.Context, store *runstore.Store, sessionID, msg string) (r localReply, ok bool, err error) {
	word, isCmd := slashWord(msg)
	if !isCmd {
		return localReply{}, false, nil
	}
	switch strings.ToLower(word) {
	case usecase.AlertCommand:
		return localReply{}, false, nil
	case "/help":
		return localReply{markdown: chatHelp}, true, nil
	case "/quit", "/exit":
		return localReply{quit: true}, true, nil
	case "/runs":
		md, err := sessionRunsMarkdown(ctx, store, sessionID)
		return localReply{markdown: md}, true, err
	}
	return localReply{markdown: fmt.Sprintf("Unknown command `%s`: `/help` lists the commands.", word)}, true, nil
}

// sessionRunsMarkdown is /runs: the session's runs, newest first.
func sessionRunsMarkdown(ctx context.Context, store *runstore.Store, sessionID string) (string, error) {
	if sessionID == "" {
		return "No runs in this session yet.", nil
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: sessionID, Limit: chatSessionRuns})
	if err != nil {
		return "", fmt.Errorf("/runs: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Runs of session `%s`, newest first:\n\n", sessionID)
	for _, r := range runs {
		fmt.Fprintf(&b, "- `%s` %s · %s · %s\n", r.ID, cell(r.Intent), statusWord(string(r.ReleaseOutcome), string(r.StopReason)), cell(r.Query))
	}
	b.WriteString("\n`superbiz runs show RUN_ID` shows one in full.")
	return b.String(), nil
}

// statusWord is an outcome and, when it is not SUCCESS, its stop reason
// (said once when the two agree), as diagnose's end line says it.
func statusWord(outcome, reason string) string {
	if reason == "" || reason == outcome || outcome == string(runrecord.OutcomeSuccess) {
		return outcome
	}
	return outcome + " (" + reason + ")"
}

// sessionPast is the session chat resumes (--session, or the latest with
// --continue; "" for a new one) and its stored turns, oldest first, at most
// chatSessionRuns.
func sessionPast(ctx context.Context, store *runstore.Store, sessionID string, cont bool) (string, []tui.PastTurn, error) {
	if sessionID == "" && cont {
		id, ok, err := store.LatestSessionID(ctx)
		if err != nil || !ok {
			return "", nil, err
		}
		sessionID = id
	}
	if sessionID == "" {
		return "", nil, nil
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: sessionID, Limit: chatSessionRuns})
	if err != nil {
		return "", nil, fmt.Errorf("read the session's turns: %w", err)
	}
	slices.Reverse(runs)
	past := make([]tui.PastTurn, 0, len(runs))
	for _, r := range runs {
		if r.Intent == runrecord.IntentToolCall {
			// An MCP client's direct tool call is not a turn of the chat.
			continue
		}
		d, err := store.GetRun(ctx, r.ID)
		if err != nil {
			return "", nil, fmt.Errorf("read the session's turns: %w", err)
		}
		past = append(past, tui.PastTurn{Query: shownText(r.Query), Finished: tui.TurnFinishedMsg{
			Intent: r.Intent, Markdown: d.Answer, Outcome: r.ReleaseOutcome, StopReason: r.StopReason, RunID: r.ID,
		}})
	}
	return sessionID, past, nil
}

// chatSaid is one answered message of the full-screen chat.
type chatSaid struct {
	query string
	out   usecase.Output
}

// printConversation leaves the conversation in the scrollback when the
// full-screen chat closes (the screen itself is wiped): each message and its
// answer, then the session and the command that resumes it (with the
// global flags g it needs).
func (a *app) printConversation(said []chatSaid, sessionID string, g globalOptions) error {
	for _, t := range said {
		if err := a.io.Out.Printf("› %s\n", cell(t.query)); err != nil {
			return fmt.Errorf("print the conversation: %w", err)
		}
		if err := a.printChatTurn(t.out, g.Output); err != nil {
			return err
		}
	}
	if sessionID == "" {
		return nil
	}
	command := resumeCommand(sessionID, g)
	if resumeFits(sessionID, command, a.io.OutColumns()) {
		return a.io.Out.Printf("session %s · resume with: %s\n", sessionID, command)
	}
	return a.io.Out.Printf("session %s\nresume with: %s\n", sessionID, command)
}

// resumeFits says whether the session and its resume command fit one line
// of cols columns (0: piped output, which keeps the one line scripts read);
// when they do not, they go on two lines, so a terminal never wraps the line
// inside the session ID.
func resumeFits(sessionID, command string, cols int) bool {
	return cols <= 0 || ansi.StringWidth("session "+sessionID+" · resume with: "+command) <= cols
}

// resumeCommand is the command line that resumes a chat session: with the
// flags this one needed to find the session and answer it the same way
// (--demo, --config and --db when given), each value quoted for a POSIX shell.
func resumeCommand(sessionID string, g globalOptions) string {
	line := "superbiz chat --session " + shellWord(sessionID)
	if g.Demo {
		line += " --demo"
	}
	if g.ConfigPath != "" {
		line += " --config " + shellWord(g.ConfigPath)
	}
	if db := g.Overrides.DBPath; db != nil && *db != "" {
		line += " --db " + shellWord(*db)
	}
	return line
}

// shellWord quotes s for a POSIX shell when it holds anything but
// characters that never need quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
