package cmd

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/goldenfile"

	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// goldenStore stores a fixed set of runs through the store's API: a full
// diagnosis with every audit row kind, a failed run, a running one and a
// record whose JSON columns were damaged behind the store's back. It returns
// the environment and a replacer of the local times the text renderers print
// by the same times in UTC, as the golden files hold them. texts replaces a run's query (by run
// ID) or the input summary of the query_logs call ("input").
func goldenStore(t *testing.T, texts map[string]string) (env map[string]string, local *strings.Replacer) {
	t.Helper()
	env = diagnoseEnv(t)
	ctx := context.Background()
	store, err := runstore.Open(ctx, env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.CreateSession(ctx, "s_golden"))
	base := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	query := func(id, fallback string) string {
		if q, ok := texts[id]; ok {
			return q
		}
		return fallback
	}

	ok := "r_golden_ok"
	settings := &runrecord.Settings{Budget: config.Budget{MaxModelCalls: 8, MaxToolCalls: 6, MaxTokens: 60000, MaxRunBytes: 262144, Deadline: 5 * time.Minute, MaxNoGain: 2},
		Limits: &config.Limits{Query: 4096, PreviousTurn: 8192, Input: 12288, Draft: 16384, Observation: 8192}, Language: "en"}
	must(store.CreateRun(ctx, runstore.NewRun{ID: ok, SessionID: "s_golden", Query: query(ok, "payment timeouts on order-service since 14:00"),
		Intent: runrecord.IntentDiagnosis, Model: "qwen3:8b", Host: "http://127.0.0.1:11434", Clock: base, Settings: settings, CreatedAt: base}))
	for _, inv := range []runrecord.Invocation{
		{ToolCallID: "call_gold0001", Tool: "read_skill", Kind: runrecord.KindGuidance, Input: json.RawMessage(`{"name":"diagnose-payment-timeout"}`),
			Summary: "diagnose-payment-timeout", Status: "COMPLETED", Observation: json.RawMessage(`{"tool_call_id":"call_gold0001"}`), StartedAt: base, Duration: 3 * time.Millisecond},
		{ToolCallID: "call_gold0002", Tool: "query_logs", Kind: runrecord.KindEvidence, Input: json.RawMessage(`{"service":"order-service","level":"ERROR"}`),
			Summary: query("input", "order-service ERROR since 1h"), Status: "COMPLETED", EvidenceStatus: "EVIDENCE_FOUND",
			Observation: json.RawMessage(`{"tool_call_id":"call_gold0002","evidence_status":"EVIDENCE_FOUND"}`), StartedAt: base.Add(time.Second), Duration: 42 * time.Millisecond},
		{ToolCallID: "call_gold0003", Tool: "query_mysql", Kind: runrecord.KindEvidence, Input: json.RawMessage(`{"sql":"DELETE FROM orders"}`),
			Status: "REFUSED", EvidenceStatus: "ERROR", ErrorCode: "NOT_READ_ONLY", StartedAt: base.Add(2 * time.Second), Duration: 1 * time.Millisecond,
			Detail: "DELETE is not a read: only SELECT, SHOW, DESCRIBE and EXPLAIN run"},
		{ToolCallID: "call_gold0004", Tool: "query_logs", Kind: runrecord.KindControl, Status: "REFUSED", Control: runrecord.ControlRepair,
			ErrorCode: "MISSING_PREVIOUS_OBSERVATION", StartedAt: base.Add(3 * time.Second), Duration: 0,
			Detail: "the envelope carries no previous_observation for call_gold0002"},
		{ToolCallID: "call_gold0005", Tool: "read_skill", Kind: runrecord.KindGuidance, Summary: "missing-skill", Status: "FAILED", ErrorCode: "NOT_FOUND",
			StartedAt: base.Add(4 * time.Second), Duration: 1250 * time.Millisecond},
	} {
		_, err := store.AppendToolInvocation(ctx, ok, inv)
		must(err)
	}
	for _, r := range []runrecord.ModelRound{
		{Purpose: runrecord.PurposeDiagnosis, Request: json.RawMessage(`{}`), Response: json.RawMessage(`{}`), PromptTokens: 2400, CompletionTokens: 60, Duration: 850 * time.Millisecond, StartedAt: base},
		{Purpose: runrecord.PurposeFinal, Request: json.RawMessage(`{}`), PromptTokens: 3100, Duration: 125_000 * time.Millisecond, ErrorKind: "TIMEOUT", StartedAt: base.Add(time.Second)},
		{Purpose: runrecord.PurposeSemanticGuard, Request: json.RawMessage(`{}`), Response: json.RawMessage(`{}`), PromptTokens: 900, CompletionTokens: 40, Duration: 1250 * time.Millisecond, StartedAt: base.Add(2 * time.Second)},
	} {
		_, err := store.AppendModelRound(ctx, ok, r)
		must(err)
	}
	for _, g := range []runstore.GuardReview{
		{Guard: runrecord.GuardEvidence, Verdict: "PASS", Reasons: json.RawMessage(`[]`), CreatedAt: base.Add(5 * time.Second)},
		{Guard: runrecord.GuardSemantic, Verdict: "SUPPORTED", Reasons: json.RawMessage(`["Each finding restates a checked observation","the pipe | stays"]`), CreatedAt: base.Add(6 * time.Second)},
	} {
		_, err := store.AppendGuardReview(ctx, ok, g)
		must(err)
	}
	must(store.FinishRun(ctx, ok, runstore.Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, StopReason: "COMPLETED",
		Lifecycle: runrecord.Completed, Answer: "## Conclusion\n\nThe payment gateway times out.\n",
		PublishedResult: json.RawMessage(`{"conclusion":{"summary":"The payment gateway times out","confidence":"HIGH"},"findings":[{"id":"f1"},{"id":"f2"}],"knowledge_refs":[{"doc_id":"payment"}]}`),
		Checks: []runrecord.Check{
			{Tool: "query_logs", EvidenceStatus: "EVIDENCE_FOUND", Summary: "order ERROR since 1h"},
			{Tool: "query_mysql", EvidenceStatus: "ERROR", Summary: "refused (NOT_READ_ONLY)"},
			// As runs stored before the code moved into the summary hold it.
			{Tool: "query_mysql", EvidenceStatus: "ERROR", ErrorCode: "TIMEOUT", Summary: strings.Repeat("slow ", 40)},
		},
		Usage:      runrecord.Usage{ModelCalls: 3, ToolCalls: 4, PromptTokens: 6400, CompletionTokens: 100, Bytes: 20480, DurationMS: 9_500},
		FinishedAt: base.Add(9500 * time.Millisecond)}))

	failed := "r_golden_failed"
	must(store.CreateRun(ctx, runstore.NewRun{ID: failed, SessionID: "s_golden", Query: query(failed, "why is checkout slow"), Intent: runrecord.IntentDiagnosis,
		Model: "qwen3:8b", ReplayOf: ok, CreatedAt: base.Add(time.Minute)}))
	must(store.FinishRun(ctx, failed, runstore.Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed, StopReason: "MODEL_UNAVAILABLE",
		Lifecycle: runrecord.Failed, Answer: "## Failed\n\nThe model server is unreachable.\n", Checks: []runrecord.Check{},
		Usage: runrecord.Usage{ModelCalls: 1, DurationMS: 850}, ErrorCode: "MODEL_UNAVAILABLE", ErrorMessage: "dial tcp 127.0.0.1:1: connection refused",
		FinishedAt: base.Add(time.Minute + 850*time.Millisecond)}))

	running := "r_golden_running"
	must(store.CreateRun(ctx, runstore.NewRun{ID: running, SessionID: "s_golden", Query: query(running, "是否有慢查询"), CreatedAt: base.Add(2 * time.Minute)}))

	damaged := "r_golden_damaged"
	must(store.CreateRun(ctx, runstore.NewRun{ID: damaged, SessionID: "s_golden", Query: query(damaged, "a damaged record"), Intent: runrecord.IntentDiagnosis,
		Model: "m", Settings: &runrecord.Settings{Budget: config.Budget{MaxModelCalls: 8}}, CreatedAt: base.Add(3 * time.Minute)}))
	_, err = store.AppendGuardReview(ctx, damaged, runstore.GuardReview{Guard: runrecord.GuardSemantic, Verdict: "UNSUPPORTED", Reasons: json.RawMessage(`["x"]`), CreatedAt: base.Add(3 * time.Minute)})
	must(err)
	must(store.FinishRun(ctx, damaged, runstore.Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, StopReason: "NO_CONCLUSION",
		Lifecycle: runrecord.Completed, Answer: "", Checks: []runrecord.Check{},
		Usage: runrecord.Usage{DurationMS: 61_000}, FinishedAt: base.Add(4*time.Minute + time.Second)}))
	// Behind the store's back: a plain connection to the same file.
	raw, err := sql.Open("sqlite", "file:"+env["SUPERBIZ_DB"]+"?_pragma=busy_timeout(10000)")
	must(err)
	defer raw.Close()
	for _, q := range []string{
		`UPDATE runs SET budget = '{"max_model_calls":"eight"}', checks = '{not json', published_result = '[1]' WHERE id = 'r_golden_damaged'`,
		`UPDATE guard_reviews SET reasons = '"one"' WHERE run_id = 'r_golden_damaged'`,
	} {
		_, err := raw.ExecContext(ctx, q)
		must(err)
	}

	var pairs []string
	for _, at := range []time.Time{base, base.Add(time.Minute), base.Add(2 * time.Minute), base.Add(3 * time.Minute)} {
		pairs = append(pairs, at.Local().Format("2006-01-02 15:04:05 MST"), at.Format("2006-01-02 15:04:05 UTC"))
		pairs = append(pairs, at.Local().Format("2006-01-02 15:04"), at.Format("2006-01-02 15:04"))
	}
	for _, at := range []time.Time{base.Add(9500 * time.Millisecond), base.Add(time.Minute + 850*time.Millisecond), base.Add(4*time.Minute + time.Second)} {
		pairs = append(pairs, "→ "+at.Local().Format("15:04:05"), at.Format("→ 15:04:05"))
	}
	return env, strings.NewReplacer(pairs...)
}

// The `runs` and `runs show` outputs in every format are byte for byte the
// golden files: a renderer change shows up as a reviewed diff.
func TestRunsGolden(t *testing.T) {
	env, local := goldenStore(t, nil)
	for _, tt := range []struct {
		file string
		args []string
	}{
		{"runs.golden", []string{"runs"}},
		{"runs.md.golden", []string{"runs", "-o", "markdown"}},
		{"runs.json.golden", []string{"runs", "-o", "json"}},
		{"runs-show-ok.golden", []string{"runs", "show", "r_golden_ok"}},
		{"runs-show-ok.md.golden", []string{"runs", "show", "r_golden_ok", "-o", "markdown"}},
		{"runs-show-ok.json.golden", []string{"runs", "show", "r_golden_ok", "-o", "json"}},
		{"runs-show-failed.golden", []string{"runs", "show", "r_golden_failed"}},
		{"runs-show-failed.json.golden", []string{"runs", "show", "r_golden_failed", "-o", "json"}},
		{"runs-show-running.golden", []string{"runs", "show", "r_golden_running"}},
		{"runs-show-running.json.golden", []string{"runs", "show", "r_golden_running", "-o", "json"}},
		{"runs-show-damaged.golden", []string{"runs", "show", "r_golden_damaged"}},
		{"runs-show-damaged.md.golden", []string{"runs", "show", "r_golden_damaged", "-o", "markdown"}},
		{"runs-show-damaged.json.golden", []string{"runs", "show", "r_golden_damaged", "-o", "json"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := cli(t, env, tt.args...)
			if code != ExitOK || errOut != "" {
				t.Fatalf("%q: exit %d, stderr %q", tt.args, code, errOut)
			}
			goldenfile.Check(t, tt.file, []byte(local.Replace(out)))
		})
	}
}

// CJK and emoji texts (two terminal cells per character, a ZWJ sequence
// that is one glyph, a combining mark) keep the text tables aligned: every
// column starts at the same display column on every line.
func TestRunsGoldenWideText(t *testing.T) {
	env, local := goldenStore(t, map[string]string{
		"r_golden_ok":      "订单服务支付超时 504 🔥",
		"r_golden_failed":  "为什么结账很慢 👩‍💻",
		"r_golden_running": "是否有慢查询",
		"r_golden_damaged": "ｆｕｌｌｗｉｄｔｈ query",
		"input":            "支付超时 🔥 café order-service",
	})
	for _, tt := range []struct {
		file   string
		args   []string
		header string // the table whose columns are checked
	}{
		{"runs-wide.golden", []string{"runs"}, "#  RUN "},
		{"runs-show-wide.golden", []string{"runs", "show", "r_golden_ok"}, "SEQ  TOOL CALL ID"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := cli(t, env, tt.args...)
			if code != ExitOK || errOut != "" {
				t.Fatalf("%q: exit %d, stderr %q", tt.args, code, errOut)
			}
			goldenfile.Check(t, tt.file, []byte(local.Replace(out)))
			assertColumnsAligned(t, out, tt.header)
		})
	}
}

// assertColumnsAligned checks the text table that starts with the line
// beginning with header: each column (found from the header's words
// separated by two spaces) starts at the same display column on every row,
// and the cell before it ends with at least two spaces; a row whose first
// cells are empty (a call's detail) starts its text at a column.
func assertColumnsAligned(t *testing.T, out, header string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, header) {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no table starting with %q in:\n%s", header, out)
	}
	var cols []int // display columns where the header's columns start
	h := lines[start]
	for i := 0; i < len(h); i++ {
		if i == 0 || (h[i] != ' ' && strings.HasSuffix(h[:i], "  ")) {
			cols = append(cols, ansi.StringWidth(h[:i]))
		}
	}
	rows := 0
	for _, l := range lines[start+1:] {
		if l == "" {
			break
		}
		rows++
		if text := strings.TrimLeft(l, " "); text != l {
			// A row of its own under a call (its detail) starts at a column.
			if at := len(l) - len(text); !slices.Contains(cols, at) {
				t.Errorf("continuation row at display width %d starts at no column of %q: %q", at, h, l)
			}
			continue
		}
		for _, c := range cols[1:] {
			// The text up to display column c must end in the gap.
			before := prefixOfWidth(l, c)
			if ansi.StringWidth(before) != c || !strings.HasSuffix(before, "  ") || strings.HasPrefix(l[len(before):], " ") {
				t.Errorf("column at display width %d not aligned in %q (header %q)", c, l, h)
			}
		}
	}
	if rows == 0 {
		t.Fatalf("table %q has no rows", header)
	}
}

// prefixOfWidth is the longest prefix of s, cut at a rune, whose display
// width is at most w.
func prefixOfWidth(s string, w int) string {
	last := ""
	for i := range s {
		if ansi.StringWidth(s[:i]) > w {
			return last
		}
		last = s[:i]
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return last
}
