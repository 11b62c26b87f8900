package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// talliedRun has one call of each evidence tool, each ending with the
// words its adapter says of what it found, then a refused call (no tally)
// and the run cancelled.
var talliedRun = []harness.Event{
	harness.RunStarted{Meta: meta(), Query: query, Budget: harness.DefaultBudget()},
	tallied(toolDone("call_1", "query_logs", "payment-service ERROR since 1h", tools.EvidenceFound, ""), "412 matched, first 09:10:03"),
	tallied(toolDone("call_2", "lookup_knowledge", `"tls handshake" top 3`, tools.EvidenceFound, ""), "top: tls.md#tls-certificate-expiry (0.82)"),
	tallied(toolDone("call_3", "query_mysql", "orders: SELECT status, count(*) FROM payments GROUP BY status", tools.EvidenceFound, ""), "3 rows"),
	tallied(toolDone("call_4", "query_metrics", "prom rate(http_errors_total[5m]) since 1h", tools.NoEvidence, ""), "0 series"),
	tallied(toolDone("call_5", "query_metrics", "prom up since 1h", tools.EvidenceFound, ""), "3 series, max 0.97"),
	toolDone("call_6", "query_logs", "payment-service ERROR since 1h", "", runrecord.ControlDuplicate),
	harness.RunFinished{Meta: meta(), Lifecycle: runrecord.Cancelled, StopReason: runrecord.StopCancelled, Outcome: runrecord.OutcomeCancelled, Usage: usage(3, 6, 9000, 300, 20480), Duration: 41 * time.Second},
}

// TestLinePrinterTalliesGolden: every tool line of the line printer ends
// with its tally, and the cancelled run's [done] line says how many of the
// evidence calls had gathered evidence (the refused call is not one).
func TestLinePrinterTalliesGolden(t *testing.T) {
	var buf bytes.Buffer
	p := &LinePrinter{W: egress.NewWriter(&buf)}
	for _, ev := range talliedRun {
		p.Emit(ev)
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, buf.Bytes())
}

// TestTimelineTalliesGolden: the live view's tool rows end with the same
// tallies, which stay on the cancelled screen; on a narrow screen the
// status word shrinks first (EVIDENCE_FOUND to found), then the tally is
// cut, keeping the argument (issue 40 #13), and no row is wider than the
// screen.
func TestTimelineTalliesGolden(t *testing.T) {
	var s runState
	for _, ev := range talliedRun {
		s.apply(ev, t0)
	}
	var out bytes.Buffer
	for _, width := range []int{110, 60, 40} {
		out.WriteString(strings.Repeat("─", width) + "\n")
		for _, line := range s.timeline(newStyles(), width, 0) {
			if w := ansi.StringWidth(line); w > width {
				t.Errorf("width %d: row %q is %d columns", width, line, w)
			}
			out.WriteString(plain(line) + "\n")
		}
	}
	golden.RequireEqual(t, out.Bytes())
}
