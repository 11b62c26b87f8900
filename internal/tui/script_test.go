package tui

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// t0 is the fixed instant of the scripted run and of the views' clock, so
// the time left never moves between frames.
var t0 = time.Date(2026, 1, 2, 14, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0 }

// pinnedSpinner shows one frame and never ticks within a test.
var pinnedSpinner = spinner.Spinner{Frames: []string{"◐ "}, FPS: time.Hour}

// plain is what a terminal without colour shows of a frame: the styles
// are drawn in full colour and the program brings them down to the
// terminal's profile, which for golden files is none at all.
func plain(frame string) string { return ansi.Strip(frame) }

// screen is the plain text of a view.
func screen(v tea.View) string { return plain(v.Content) }

func meta() harness.Meta { return harness.Meta{SessionID: "s_test", RunID: "r_test", At: t0} }

func usage(modelCalls, toolCalls, prompt, completion, bytes int) runrecord.Usage {
	return runrecord.Usage{ModelCalls: modelCalls, ToolCalls: toolCalls, PromptTokens: prompt, CompletionTokens: completion, Bytes: bytes}
}

func budgetEv(u runrecord.Usage, left time.Duration) harness.BudgetChanged {
	return harness.BudgetChanged{Meta: meta(), Usage: u, Budget: harness.DefaultBudget(), TimeLeft: left}
}

func toolDone(id, tool, summary string, status tools.EvidenceStatus, control string) harness.ToolCallFinished {
	inv := harness.Invocation{ToolCallID: id, Tool: tool, Summary: summary, Kind: runrecord.KindEvidence, Status: harness.StatusCompleted, EvidenceStatus: status}
	if control != "" {
		inv.Kind, inv.Status, inv.EvidenceStatus, inv.Control = runrecord.KindControl, harness.StatusRefused, "", control
	}
	return harness.ToolCallFinished{Meta: meta(), Invocation: inv}
}

// tallied gives a finished call the adapter's tally of what it found.
func tallied(ev harness.ToolCallFinished, tally string) harness.ToolCallFinished {
	ev.Invocation.Tally = tally
	return ev
}

func roundDone(seq int, purpose runrecord.Purpose, prompt, completion int) harness.ModelRoundFinished {
	return harness.ModelRoundFinished{Meta: meta(), Seq: seq, Purpose: purpose, Usage: model.Usage{PromptTokens: prompt, CompletionTokens: completion}, Duration: 2300 * time.Millisecond}
}

const query = "order-service payment timeouts since 14:00, many 504s"

// Phases of one scripted diagnosis run, each ending at a point a golden
// file pins.
var (
	phaseStart = []harness.Event{
		harness.RunStarted{Meta: meta(), Query: query, Budget: harness.DefaultBudget()},
		harness.ModelRoundStarted{Meta: meta(), Seq: 1, Purpose: runrecord.PurposeDiagnosis, WithTools: true},
		budgetEv(usage(1, 0, 0, 0, 412), 4*time.Minute+58*time.Second),
	}
	phaseMidTool = []harness.Event{
		roundDone(1, runrecord.PurposeDiagnosis, 1200, 34),
		harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_skill01", Tool: "read_skill"},
		harness.ToolCallFinished{Meta: meta(), Invocation: harness.Invocation{ToolCallID: "call_skill01", Tool: "read_skill", Kind: runrecord.KindGuidance, Status: harness.StatusCompleted, Summary: "diagnose-payment-timeout"}},
		harness.ModelRoundStarted{Meta: meta(), Seq: 2, Purpose: runrecord.PurposeDiagnosis, WithTools: true},
		roundDone(2, runrecord.PurposeDiagnosis, 2310, 58),
		harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_ab12cd34", Tool: "query_logs"},
		tallied(toolDone("call_ab12cd34", "query_logs", "order-service ERROR since 1h", tools.EvidenceFound, ""), "412 matched"),
		budgetEv(usage(2, 1, 3510, 92, 5120), 4*time.Minute+32*time.Second),
	}
	phaseStop = []harness.Event{
		harness.ModelRoundStarted{Meta: meta(), Seq: 3, Purpose: runrecord.PurposeDiagnosis, WithTools: true},
		roundDone(3, runrecord.PurposeDiagnosis, 4100, 75),
		harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_ef56gh78", Tool: "query_mysql"},
		toolDone("call_ef56gh78", "query_mysql", "orders: SELECT status, count(*) FROM payments GROUP BY status", "", runrecord.ControlRepair),
		harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_ij90kl12", Tool: "query_logs"},
		toolDone("call_ij90kl12", "query_logs", "order-service ERROR since 1h", "", runrecord.ControlDuplicate),
		harness.StopRequired{Meta: meta(), Reason: runrecord.StopSaturated},
		harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_mn34op56", Tool: "lookup_knowledge"},
		toolDone("call_mn34op56", "lookup_knowledge", "payment gateway 504", "", runrecord.ControlStop),
		harness.ModelRoundStarted{Meta: meta(), Seq: 4, Purpose: runrecord.PurposeFinal},
		budgetEv(usage(4, 4, 8300, 240, 9216), 3*time.Minute+41*time.Second),
	}
	phaseEnd = []harness.Event{
		harness.ModelRoundFinished{Meta: meta(), Seq: 4, Purpose: runrecord.PurposeFinal, ErrorKind: string(runrecord.StopSaturated), Duration: time.Second},
		harness.RunFinished{Meta: meta(), Lifecycle: runrecord.Completed, StopReason: runrecord.StopSaturated, Usage: usage(4, 4, 8300, 240, 9216), Duration: 79 * time.Second, Outcome: "FALLBACK"},
	}
)

const fallbackMarkdown = `# No conclusion

The evidence gathered is not enough to name a root cause.

## What was checked

- query_logs: order-service ERROR since 1h — **EVIDENCE_FOUND**

## What is missing

- payment gateway latency for the same window
`

// script concatenates phases as program messages.
func script(phases ...[]harness.Event) []tea.Msg {
	var msgs []tea.Msg
	for _, p := range phases {
		for _, ev := range p {
			msgs = append(msgs, EventMsg{Event: ev})
		}
	}
	return msgs
}

func testDiagnose(width int, onCancel func()) Diagnose {
	return NewDiagnose(DiagnoseOptions{
		Query: query, Now: fixedNow, Spinner: pinnedSpinner,
		MarkdownStyle: "notty", OnCancel: onCancel, Width: width,
	})
}

// shows fails the test unless the plain view holds want. The program
// handles the messages a test sends in order, so the final model shows
// everything sent before Quit; its output is no place to look, as
// bubbletea v2 redraws only the cells that changed.
func shows(t *testing.T, view, want string) {
	t.Helper()
	if !strings.Contains(view, want) {
		t.Fatalf("the view lacks %q:\n%s", want, view)
	}
}

// lastLine is the last non-empty line of a view, to wait for in the output.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
