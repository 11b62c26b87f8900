package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// hugeRunSteps is how many tool steps hugeRun audits: what one answer of
// 80,000 calls left before answers were capped at 32 (issue 27 #8).
const hugeRunSteps = 80_000

// hugeRun stores, in the env's run store, a finished run with hugeRunSteps
// tool steps: the first ones through the store's API (the first with a
// 200 KB observation and a 10 KB detail, as a store written with raised
// limits or crafted may hold), the rest copies of the second made by SQL,
// which takes a second where 80,000 appends take half a minute.
func hugeRun(t *testing.T, e *env) string {
	t.Helper()
	ctx := context.Background()
	s, err := runstore.Open(ctx, e.vars["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	const id = "r_huge"
	if _, err := s.EnsureSession(ctx, "s_huge"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, runstore.NewRun{ID: id, SessionID: "s_huge", Query: "an answer of 80,000 calls"}); err != nil {
		t.Fatal(err)
	}
	big, err := json.Marshal(map[string]any{"result": map[string]string{"text": strings.Repeat("x", 200_000)}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []runrecord.Invocation{
		{ToolCallID: "call_1", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
			Input: json.RawMessage(`{"source":"app"}`), Observation: big, Detail: strings.Repeat("why ", 2_500)},
		{ToolCallID: "call_2", Tool: "query_logs", Kind: runrecord.KindControl, Status: runrecord.InvocationRefused,
			Control: runrecord.ControlRepair, ErrorCode: "TOO_MANY_CALLS", Detail: "past the cap"},
	}
	for _, inv := range steps {
		if _, err := s.AppendToolInvocation(ctx, id, inv); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishRun(ctx, id, runstore.Finish{Status: runrecord.RunStatusFailed, StopReason: runrecord.StopInputRejected}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", e.vars["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `WITH RECURSIVE n(seq) AS (SELECT 3 UNION ALL SELECT seq + 1 FROM n WHERE seq < ?)
		INSERT INTO tool_invocations (run_id, seq, tool_call_id, tool, kind, canonical_input, input_summary, status,
			evidence_status, error_code, control, observation, started_at, duration_ms, detail, evaluated, evaluation, empty_window, tally)
		SELECT i.run_id, n.seq, 'call_' || n.seq, i.tool, i.kind, i.canonical_input, i.input_summary, i.status,
			i.evidence_status, i.error_code, i.control, i.observation, i.started_at, i.duration_ms, i.detail, i.evaluated, i.evaluation, i.empty_window, i.tally
		FROM n, tool_invocations i WHERE i.run_id = ? AND i.seq = 2`, hugeRunSteps, id)
	if err != nil {
		t.Fatalf("copy the steps: %v", err)
	}
	return id
}

// runPage is the part of `runs show -o json` (and run_show) paging sets.
type runPage struct {
	RunID             string `json:"run_id"`
	InvocationsTotal  int    `json:"invocations_total"`
	InvocationsOffset int    `json:"invocations_offset"`
	Invocations       []struct {
		Seq         int             `json:"seq"`
		ToolCallID  string          `json:"tool_call_id"`
		Observation json.RawMessage `json:"observation"`
		Detail      *string         `json:"detail"`
	} `json:"invocations"`
}

// seqs are the first and last Seq of a page and how many it holds.
func (p runPage) seqs() string {
	if len(p.Invocations) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d..%d (%d)", p.Invocations[0].Seq, p.Invocations[len(p.Invocations)-1].Seq, len(p.Invocations))
}

// TestRunsShowPages: `runs show` of a run with 80,000 tool steps prints one
// bounded page of them (50 by default, --offset and --limit choose another,
// JSON says the total and the offset), each step's large members cut, in
// text and JSON; MCP's run_show takes offset and limit the same way.
// Before paging, the JSON was 42 MB.
func TestRunsShowPages(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	id := hugeRun(t, e)

	show := func(args ...string) (runPage, int) {
		t.Helper()
		r := e.run(t, append([]string{"runs", "show", id, "-o", "json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		var p runPage
		if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
			t.Fatalf("runs show %q -o json: %v", args, err)
		}
		return p, len(r.stdout)
	}
	p, size := show()
	if size > 256<<10 {
		t.Errorf("runs show -o json: %d bytes, want at most 256 KiB for one page", size)
	}
	if p.InvocationsTotal != hugeRunSteps || p.InvocationsOffset != 0 || p.seqs() != "1..50 (50)" {
		t.Errorf("first page: total %d, offset %d, steps %s; want %d, 0, 1..50 (50)", p.InvocationsTotal, p.InvocationsOffset, p.seqs(), hugeRunSteps)
	}
	if len(p.Invocations) > 0 {
		first := p.Invocations[0]
		var cut string
		if err := json.Unmarshal(first.Observation, &cut); err != nil || len(cut) > 32<<10 || !strings.HasSuffix(cut, "…") {
			t.Errorf("a 200 KB observation is shown as %d bytes (%v), want a string of at most 32 KiB ending in …", len(first.Observation), err)
		}
		if first.Detail == nil || len(*first.Detail) > 4<<10 || !strings.HasSuffix(*first.Detail, "…") {
			t.Errorf("a 10 KB detail is shown whole or missing, want at most 4 KiB ending in …")
		}
	}
	if p, _ := show("--offset", "79990", "--limit", "200"); p.InvocationsOffset != 79990 || p.seqs() != "79991..80000 (10)" {
		t.Errorf("last page: offset %d, steps %s; want 79990, 79991..80000 (10)", p.InvocationsOffset, p.seqs())
	}
	if p, _ := show("--offset", "100", "--limit", "3"); p.seqs() != "101..103 (3)" || p.Invocations[0].ToolCallID != "call_101" {
		t.Errorf("--offset 100 --limit 3: steps %s, want 101..103 (3)", p.seqs())
	}
	if p, _ := show("--offset", "90000"); p.InvocationsTotal != hugeRunSteps || len(p.Invocations) != 0 {
		t.Errorf("past the end: total %d, steps %s; want %d, none", p.InvocationsTotal, p.seqs(), hugeRunSteps)
	}
	for _, bad := range [][]string{{"--limit", "201"}, {"--limit", "0"}, {"--offset", "-1"}} {
		if r := e.run(t, append([]string{"runs", "show", id}, bad...)...); r.code != 2 || !strings.Contains(r.stderr, strings.TrimPrefix(bad[0], "--")+" must be") {
			t.Errorf("runs show %q: exit %d, stderr %q; want exit 2 naming the bound", bad, r.code, r.stderr)
		}
	}
	text := e.run(t, "runs", "show", id)
	if text.code != 0 || len(text.stdout) > 64<<10 || !strings.Contains(text.stdout, "1–50 of 80000; --offset 50 shows the next ones") {
		t.Errorf("runs show (text): exit %d, %d bytes; want at most 64 KiB saying which page it shows\n%s", text.code, len(text.stdout), textHead(text.stdout))
	}

	s, stderr := mcpSession(t, e, nil, "--demo", "mcp")
	for _, tt := range []struct {
		args string
		want string
	}{
		{`{"run_id":"` + id + `"}`, "1..50 (50)"},
		{`{"run_id":"` + id + `","offset":100,"limit":20}`, "101..120 (20)"},
		{`{"run_id":"` + id + `","offset":79999,"limit":200}`, "80000..80000 (1)"},
	} {
		res := callTool(t, s, "run_show", tt.args)
		if res.IsError {
			t.Fatalf("run_show %s: %q\n%s", tt.args, resultText(res), stderr)
		}
		var p runPage
		structured(t, res, &p)
		if p.InvocationsTotal != hugeRunSteps || p.seqs() != tt.want {
			t.Errorf("run_show %s: total %d, steps %s; want %d, %s", tt.args, p.InvocationsTotal, p.seqs(), hugeRunSteps, tt.want)
		}
		if n := len(resultText(res)); n > 256<<10 {
			t.Errorf("run_show %s: %d bytes of text, want at most 256 KiB", tt.args, n)
		}
	}
	for _, bad := range []string{`{"run_id":"` + id + `","limit":201}`, `{"run_id":"` + id + `","offset":-1}`} {
		if res := callTool(t, s, "run_show", bad); !res.IsError || !strings.Contains(resultText(res), "INVALID_INPUT") {
			t.Errorf("run_show %s: %q, want INVALID_INPUT", bad, resultText(res))
		}
	}
}

// textHead is the start of a long output, for a failure message.
func textHead(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
