package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// jsonArray decodes stdout as one JSON array of objects.
func jsonArray(t *testing.T, out string) []map[string]any {
	t.Helper()
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not one JSON array: %v\n%s", err, out)
	}
	return got
}

// jsonObject decodes stdout as one JSON object.
func jsonObject(t *testing.T, out string) map[string]any {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	return got
}

// demoRuns stores two real runs through `diagnose`: the demo diagnosis
// (released SUCCESS on the scripted transcript and the real tools), then a
// FAILED run (another query, no reachable model). It returns their IDs.
func demoRuns(t *testing.T, env map[string]string) (success, failed map[string]any) {
	t.Helper()
	code, out, errOut := cli(t, env, "diagnose", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("diagnose --demo: exit %d\n%s\n%s", code, out, errOut)
	}
	success = jsonObject(t, out)
	code, out, errOut = cli(t, env, "diagnose", "--demo", "-o", "json", "why is checkout slow")
	if code != ExitUnavailable {
		t.Fatalf("diagnose with no model: exit %d, want %d\n%s\n%s", code, ExitUnavailable, out, errOut)
	}
	failed = jsonObject(t, out)
	return success, failed
}

// An empty store lists no runs; a store $SUPERBIZ_DB names that does not
// exist is an error, and reading never creates it.
func TestRunsEmptyStore(t *testing.T) {
	env := diagnoseEnv(t)
	if code, _, errOut := cli(t, env, "runs"); code != ExitUsage || !strings.Contains(errOut, "(from $SUPERBIZ_DB) does not exist") {
		t.Errorf("runs on a missing named store: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(env["SUPERBIZ_DB"]); !os.IsNotExist(err) {
		t.Errorf("runs created the store (stat: %v)", err)
	}
	emptyStore(t, env)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"runs"}, "No runs yet: try `superbiz diagnose --demo`.\n"},
		{[]string{"runs", "list"}, "No runs yet: try `superbiz diagnose --demo`.\n"},
		{[]string{"runs", "-o", "markdown"}, "No runs yet: try `superbiz diagnose --demo`.\n"},
		{[]string{"runs", "-o", "json"}, "[]\n"},
	} {
		code, out, errOut := cli(t, env, tt.args...)
		if code != ExitOK || errOut != "" {
			t.Errorf("%q: exit %d, stderr %q", tt.args, code, errOut)
		}
		if out != tt.want {
			t.Errorf("%q: stdout %q, want %q", tt.args, out, tt.want)
		}
	}
}

func TestRunsListTableAndJSON(t *testing.T) {
	env := diagnoseEnv(t)
	success, failed := demoRuns(t, env)
	okID, failID := success["run_id"].(string), failed["run_id"].(string)

	code, out, errOut := cli(t, env, "runs")
	if code != ExitOK || errOut != "" {
		t.Fatalf("runs: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", out)
	}
	for _, h := range []string{"#", "RUN", "CREATED", "INTENT", "STATUS", "OUTCOME", "STOP", "CALLS", "DURATION", "QUERY"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header lacks %q: %q", h, lines[0])
		}
	}
	// Newest first, each with its number: the failed run was stored last.
	if !strings.HasPrefix(lines[1], "2  "+failID+" ") || !strings.HasPrefix(lines[2], "1  "+okID+" ") {
		t.Errorf("rows not newest first (want %s then %s):\n%s", failID, okID, out)
	}
	for _, want := range []string{"FAILED", "MODEL_UNAVAILABLE", "why is checkout slow"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("failed row lacks %q: %q", want, lines[1])
		}
	}
	for _, want := range []string{"DIAGNOSIS", "SUCCESS", "COMPLETED", "7/5", "payment timeouts on order-service"} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("success row lacks %q: %q", want, lines[2])
		}
	}
	// The columns are aligned: QUERY starts at the same offset on every line.
	col := strings.Index(lines[0], "QUERY")
	if strings.Index(lines[1], "why is") != col {
		t.Errorf("QUERY column not aligned:\n%s", out)
	}

	code, out, errOut = cli(t, env, "runs", "-o", "json")
	if code != ExitOK {
		t.Fatalf("runs -o json: exit %d, %s", code, errOut)
	}
	got := jsonArray(t, out)
	if len(got) != 2 || got[0]["run_id"] != failID || got[1]["run_id"] != okID {
		t.Fatalf("runs -o json: want [%s %s], got %v", failID, okID, got)
	}
	keys := []string{"run_id", "number", "session_id", "created_at", "finished_at", "query", "intent", "status", "release_outcome", "stop_reason", "lifecycle", "model", "usage", "error_code", "replay_of"}
	for _, r := range got {
		for _, k := range keys {
			if _, ok := r[k]; !ok {
				t.Errorf("summary lacks %q: %v", k, r)
			}
		}
		if len(r) != len(keys) {
			t.Errorf("summary has %d keys, want %d: %v", len(r), len(keys), r)
		}
		for _, k := range []string{"created_at", "finished_at"} {
			if _, err := time.Parse(time.RFC3339, r[k].(string)); err != nil {
				t.Errorf("%s is not RFC 3339: %v", k, err)
			}
		}
		if r["replay_of"] != nil {
			t.Errorf("replay_of = %v, want null", r["replay_of"])
		}
		u := r["usage"].(map[string]any)
		for _, k := range []string{"model_calls", "tool_calls", "prompt_tokens", "completion_tokens", "bytes", "duration_ms"} {
			if _, ok := u[k]; !ok {
				t.Errorf("usage lacks %q: %v", k, u)
			}
		}
	}
	if got[0]["error_code"] != "MODEL_UNAVAILABLE" || got[1]["error_code"] != nil {
		t.Errorf("error_code: %v, %v", got[0]["error_code"], got[1]["error_code"])
	}
	if u := got[1]["usage"].(map[string]any); u["model_calls"] != 7.0 || u["tool_calls"] != 5.0 || u["prompt_tokens"] != 19000.0 {
		t.Errorf("success usage = %v", u)
	}

	code, out, _ = cli(t, env, "runs", "--limit", "1", "-o", "json")
	if got := jsonArray(t, out); code != ExitOK || len(got) != 1 || got[0]["run_id"] != failID {
		t.Errorf("--limit 1: exit %d, %v", code, got)
	}
	code, out, _ = cli(t, env, "runs", "list", "--session", success["session_id"].(string), "-o", "json")
	if got := jsonArray(t, out); code != ExitOK || len(got) != 1 || got[0]["run_id"] != okID {
		t.Errorf("--session: exit %d, %v", code, got)
	}

	code, out, _ = cli(t, env, "runs", "-o", "markdown")
	if code != ExitOK || !strings.HasPrefix(out, "| # | RUN | CREATED | INTENT |") || !strings.Contains(out, "| --- |") || strings.Count(out, "\n") != 4 {
		t.Errorf("markdown table: exit %d\n%s", code, out)
	}
}

func TestRunsUsageErrors(t *testing.T) {
	env := diagnoseEnv(t)
	emptyStore(t, env)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "--limit", "0"}, "--limit must be at least 1, got 0"},
		{[]string{"runs", "--session", "s_nope"}, `unknown session "s_nope" in ` + env["SUPERBIZ_DB"]},
		{[]string{"runs", "show"}, "superbiz: runs show takes one RUN_ID, got 0 argument(s)"},
		{[]string{"runs", "show", "r_nope"}, `unknown run "r_nope" in ` + env["SUPERBIZ_DB"] + "\nhint: `superbiz runs` lists the runs"},
		{[]string{"runs", "show", "r_nope", "-o", "json"}, `unknown run "r_nope" in `},
		{[]string{"runs", "bogus"}, `unknown command "bogus" for "superbiz runs"`},
	} {
		code, out, errOut := cli(t, env, tt.args...)
		if code != ExitUsage {
			t.Errorf("%q: exit %d, want %d", tt.args, code, ExitUsage)
		}
		if out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: stdout %q, stderr %q, want %q", tt.args, out, errOut, tt.want)
		}
	}
}

func TestRunsShowJSON(t *testing.T) {
	env := diagnoseEnv(t)
	success, failed := demoRuns(t, env)

	code, out, errOut := cli(t, env, "runs", "show", success["run_id"].(string), "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := jsonObject(t, out)
	for _, k := range []string{"run_id", "session_id", "created_at", "query", "intent", "status", "release_outcome", "stop_reason", "lifecycle", "model", "usage", "replay_of",
		"host", "clock", "budget", "answer", "result", "checks", "error", "invocations", "model_rounds", "guard_reviews"} {
		if _, ok := got[k]; !ok {
			t.Errorf("runs show lacks %q", k)
		}
	}
	if got["answer"] != success["answer"] || got["error"] != nil || got["clock"] != "2026-11-28T15:00:00Z" {
		t.Errorf("answer, error or clock wrong: %v %v", got["error"], got["clock"])
	}
	if r, ok := got["result"].(map[string]any); !ok || r["conclusion"] == nil {
		t.Errorf("result = %v, want the published result", got["result"])
	}
	if c, ok := got["checks"].([]any); !ok || len(c) != 5 {
		t.Errorf("checks = %v, want the 5 evidence checks (the timeline's among them)", got["checks"])
	}

	invs := got["invocations"].([]any)
	wantTools := []string{"read_skill", "build_timeline", "query_logs", "query_logs", "query_mysql", "lookup_knowledge"}
	if len(invs) != len(wantTools) {
		t.Fatalf("%d invocations, want %d: %v", len(invs), len(wantTools), invs)
	}
	for i, x := range invs {
		inv := x.(map[string]any)
		for _, k := range []string{"seq", "tool_call_id", "tool", "kind", "input", "summary", "status", "evidence_status", "error_code", "control", "observation", "duration_ms"} {
			if _, ok := inv[k]; !ok {
				t.Errorf("invocation %d lacks %q", i, k)
			}
		}
		wantID := fmt.Sprintf("call_demo%04d", max(i, 1))
		if i == 1 {
			wantID = demo.TimelineCallID
		}
		if inv["seq"] != float64(i+1) || inv["tool"] != wantTools[i] || inv["tool_call_id"] != wantID {
			t.Errorf("invocation %d = %v", i, inv)
		}
		if _, ok := inv["input"].(map[string]any); !ok {
			t.Errorf("invocation %d input is not an object: %v", i, inv["input"])
		}
		if i == 0 {
			// The playbook read is a guidance step, listed before the evidence.
			if inv["kind"] != "GUIDANCE" || inv["evidence_status"] != nil {
				t.Errorf("first invocation is not the guidance step: %v", inv)
			}
			continue
		}
		if inv["kind"] != "EVIDENCE" || inv["evidence_status"] != "EVIDENCE_FOUND" || inv["error_code"] != nil || inv["control"] != nil {
			t.Errorf("invocation %d: %v", i, inv)
		}
		if obs, ok := inv["observation"].(map[string]any); !ok || obs["tool_call_id"] != inv["tool_call_id"] {
			t.Errorf("invocation %d observation = %v", i, inv["observation"])
		}
	}

	rounds := got["model_rounds"].([]any)
	if len(rounds) != 7 {
		t.Fatalf("%d model rounds, want 7", len(rounds))
	}
	for i, x := range rounds {
		r := x.(map[string]any)
		for _, k := range []string{"seq", "purpose", "prompt_tokens", "completion_tokens", "duration_ms", "error_kind"} {
			if _, ok := r[k]; !ok {
				t.Errorf("model round %d lacks %q", i, k)
			}
		}
		if r["seq"] != float64(i+1) {
			t.Errorf("model round %d seq = %v", i, r["seq"])
		}
	}
	if first, last := rounds[0].(map[string]any), rounds[6].(map[string]any); first["purpose"] != "DIAGNOSIS" || first["prompt_tokens"] != 2400.0 || first["completion_tokens"] != 60.0 || last["purpose"] != "SEMANTIC_GUARD" {
		t.Errorf("model rounds: first %v, last %v", first, last)
	}
	reviews := got["guard_reviews"].([]any)
	if len(reviews) != 2 || reviews[1].(map[string]any)["verdict"] != "SUPPORTED" {
		t.Errorf("guard reviews = %v", reviews)
	}

	// The failed run: no result, an error, its failed model round.
	code, out, _ = cli(t, env, "runs", "show", failed["run_id"].(string), "-o", "json")
	got = jsonObject(t, out)
	if code != ExitOK || got["result"] != nil || got["status"] != "FAILED" {
		t.Fatalf("failed run: exit %d, %v", code, got)
	}
	if e, ok := got["error"].(map[string]any); !ok || e["code"] != "MODEL_UNAVAILABLE" || e["message"] == "" {
		t.Errorf("error = %v", got["error"])
	}
	if r := got["model_rounds"].([]any); len(r) != 1 || r[0].(map[string]any)["error_kind"] == nil {
		t.Errorf("model rounds of the failed run = %v", r)
	}
	if invs := got["invocations"].([]any); len(invs) != 0 {
		t.Errorf("invocations = %v, want []", invs)
	}
}

func TestRunsShowText(t *testing.T) {
	env := diagnoseEnv(t)
	success, _ := demoRuns(t, env)
	id := success["run_id"].(string)
	for _, format := range []string{"text", "markdown"} {
		code, out, errOut := cli(t, env, "runs", "show", id, "-o", format)
		if code != ExitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", format, code, errOut)
		}
		for _, want := range []string{id, "payment timeouts on order-service", "SUCCESS · outcome SUCCESS · stop COMPLETED · lifecycle COMPLETED",
			"scripted demo transcript", "7 model calls, 5 tool calls", "## Conclusion", "conclusion (HIGH confidence)",
			"Guard reviews (local audit data, never published)", "SEMANTIC: SUPPORTED", "Each finding restates", "SEMANTIC_GUARD"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", format, want, out)
			}
		}
		// The playbook read is shown as a guidance step before the evidence calls.
		skill := strings.Index(out, "call_demo0001")
		evidence := strings.Index(out, "call_demo0002")
		if skill < 0 || evidence < skill || !strings.Contains(out[skill:evidence], "read_skill") || !strings.Contains(out[skill:evidence], "playbook read") {
			t.Errorf("%s: guidance step not listed before the evidence calls:\n%s", format, out)
		}
		if format == "markdown" && !strings.Contains(out, "| SEQ | TOOL CALL ID | TOOL |") {
			t.Errorf("markdown: no invocation table:\n%s", out)
		}
	}
}

// Stored text holding escape sequences, control characters and line breaks
// is printed on one clean line.
func TestRunsStripsControlCharacters(t *testing.T) {
	env := diagnoseEnv(t)
	ctx := context.Background()
	store, err := runstore.Open(ctx, env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateSession(ctx, "s_evil"); err != nil {
		t.Fatal(err)
	}
	query := "checkout \x1b]0;pwned\x07slow\x1b[31m red\nsecond line\x00"
	if err := store.CreateRun(ctx, runstore.NewRun{ID: "r_evil", SessionID: "s_evil", Query: query, Intent: runrecord.IntentDiagnosis, Model: "m\x1b[2J"}); err != nil {
		t.Fatal(err)
	}
	if err := store.FinishRun(ctx, "r_evil", runstore.Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed, StopReason: "INTERNAL_ERROR",
		Answer: "boom\x1b[1A", ErrorCode: "INTERNAL_ERROR", ErrorMessage: "bad\x07 thing"}); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs"}, {"runs", "-o", "markdown"}, {"runs", "show", "r_evil"}, {"runs", "show", "r_evil", "-o", "markdown"}} {
		code, out, errOut := cli(t, env, args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d, %s", args, code, errOut)
		}
		if strings.ContainsAny(out, "\x1b\x07\x00") {
			t.Errorf("%q: raw control characters in output: %q", args, out)
		}
		if !strings.Contains(out, "checkout slow red second line") {
			t.Errorf("%q: query not shown on one clean line:\n%s", args, out)
		}
	}
	// JSON keeps the stored text exactly (escaped by the encoder).
	_, out, _ := cli(t, env, "runs", "-o", "json")
	if got := jsonArray(t, out); got[0]["query"] != query {
		t.Errorf("JSON query = %q, want %q", got[0]["query"], query)
	}
}

func TestTableHelpers(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{" two\n lines\t", "two lines"},
		{"\x1b[31mred\x1b[0m", "red"},
	} {
		if got := cell(tt.in); got != tt.want {
			t.Errorf("cell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		ms   int64
		want string
	}{{-1, "-"}, {0, "0ms"}, {850, "850ms"}, {1250, "1.2s"}, {59_960, "60.0s"}, {125_000, "2m5s"}} {
		if got := durationMS(tt.ms); got != tt.want {
			t.Errorf("durationMS(%d) = %q, want %q", tt.ms, got, tt.want)
		}
	}
	var b bytes.Buffer
	if err := writeMarkdownTable(&b, table{header: []string{"A", "B"}, rows: [][]string{{"x|y", "z"}}}); err != nil {
		t.Fatal(err)
	}
	if want := "| A | B |\n| --- | --- |\n| x\\|y | z |\n"; b.String() != want {
		t.Errorf("markdown table %q, want %q", b.String(), want)
	}
	// Text tables pad by display width: CJK two cells, a ZWJ emoji sequence
	// two, a combining mark none.
	b.Reset()
	if err := writeTextTable(&b, table{header: []string{"A", "B"}, rows: [][]string{{"支付", "x"}, {"👩‍💻", "y"}, {"e\u0301", "z"}}}); err != nil {
		t.Fatal(err)
	}
	if want := "A     B\n支付  x\n👩‍💻    y\ne\u0301     z\n"; b.String() != want {
		t.Errorf("text table %q, want %q", b.String(), want)
	}
}

// fillStore writes n finished runs over 100 sessions through the store's
// own API, as a store of long use would hold.
func fillStore(tb testing.TB, path string, n int) {
	tb.Helper()
	ctx := context.Background()
	store, err := runstore.Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	for i := range 100 {
		if err := store.CreateSession(ctx, fmt.Sprintf("s_%03d", i)); err != nil {
			tb.Fatal(err)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("r_%06d", i)
		at := base.Add(time.Duration(i) * time.Second)
		if err := store.CreateRun(ctx, runstore.NewRun{ID: id, SessionID: fmt.Sprintf("s_%03d", i%100), Query: "order-service payment timeouts since 14:00, many 504s",
			Intent: runrecord.IntentDiagnosis, Model: "qwen3:8b", CreatedAt: at}); err != nil {
			tb.Fatal(err)
		}
		if err := store.FinishRun(ctx, id, runstore.Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, StopReason: "NO_CONCLUSION",
			Lifecycle: runrecord.Completed, Answer: "## No conclusion", Usage: runrecord.Usage{ModelCalls: 3, ToolCalls: 2, DurationMS: 1500}, FinishedAt: at.Add(1500 * time.Millisecond)}); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkRunsCommand measures the whole in-process `runs` command (config,
// opening the store, the query, the table) over a store of 10,000 runs.
func BenchmarkRunsCommand(b *testing.B) {
	dir := b.TempDir()
	env := map[string]string{"SUPERBIZ_DB": dir + "/superbiz.db", "XDG_DATA_HOME": dir + "/data", "XDG_CONFIG_HOME": dir + "/config"}
	fillStore(b, env["SUPERBIZ_DB"], 10000)
	getenv := func(k string) string { return env[k] }
	for _, args := range [][]string{{"runs"}, {"runs", "-o", "json"}, {"runs", "--session", "s_042"}, {"runs", "--limit", "10000", "-o", "json"}} {
		b.Run(strings.Join(args, " "), func(b *testing.B) {
			var out, errOut bytes.Buffer
			for b.Loop() {
				out.Reset()
				if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut, getenv); code != ExitOK {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
			if out.Len() == 0 {
				b.Fatal("no output")
			}
		})
	}
}

// FuzzRenderRun feeds arbitrary stored text and JSON (a damaged or hostile
// record) to the text and Markdown renderers: they never panic and never
// print a control character other than newline and tab.
func FuzzRenderRun(f *testing.F) {
	f.Add("payment timeouts", "## Conclusion\n\nok", `[{"tool":"query_logs","evidence_status":"EVIDENCE_FOUND","summary":"s"}]`,
		`{"conclusion":{"summary":"s","confidence":"HIGH"},"findings":[{}]}`, `["supported"]`, `{"max_model_calls":8}`, "diagnose-payment-timeout")
	f.Add("\x1b]0;t\x07q\x9b31m", "\x1b[2J\x00a\u202eb", `[{"tool":"\x1b[31m"}]`, `{"conclusion":{"summary":"\u001b[1A"}}`, `["\u0007"]`, `{`, "\x1b[31mx")
	f.Add("", "", `not json`, `[]`, `{}`, `null`, "")
	f.Fuzz(func(t *testing.T, query, answer, checks, published, reasons, budget, summary string) {
		d := &runstore.RunDetail{
			RunSummary: runstore.RunSummary{ID: "r_1", SessionID: "s_1", Query: query, Intent: "DIAGNOSIS", Status: "SUCCESS", Model: query, ErrorCode: summary, FinishedAt: time.Unix(1, 0)},
			Answer:     answer, Checks: json.RawMessage(checks), PublishedResult: json.RawMessage(published), Settings: json.RawMessage(budget), ErrorMessage: answer,
			Invocations:  []runrecord.Invocation{{Seq: 1, ToolCallID: summary, Tool: query, Kind: runrecord.KindEvidence, Input: json.RawMessage(budget), Summary: summary, EvidenceStatus: tools.EvidenceStatus(summary), ErrorCode: summary, Status: runrecord.InvocationRefused, Detail: answer}},
			ModelRounds:  []runrecord.ModelRound{{Seq: 1, Purpose: runrecord.Purpose(summary), ErrorKind: query}},
			GuardReviews: []runstore.GuardReview{{Seq: 1, Guard: summary, Verdict: query, Reasons: json.RawMessage(reasons)}},
		}
		for _, format := range []outputFormat{outputText, outputMarkdown} {
			var b strings.Builder
			if err := runsRendererFor(format, 0).show(egress.NewWriter(&b), d); err != nil {
				t.Fatal(err)
			}
			for _, r := range b.String() {
				if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e') {
					t.Fatalf("%s: control character %U in output:\n%q", format, r, b.String())
				}
			}
		}
		var b strings.Builder
		if err := runsRendererFor(outputJSON, 0).show(egress.NewWriter(&b), d); err != nil {
			t.Fatalf("runs show -o json fails on a damaged record: %v", err)
		}
		if !json.Valid([]byte(b.String())) {
			t.Fatalf("invalid JSON output: %s", b.String())
		}
	})
}

// TestRunsShowRefusedCallDetail: the reason a tool call was refused (here
// the statement query_mysql refuses as not a read) reaches the audit: the
// diagnosis stores it, `runs show` prints it under the call, and `runs show
// -o json` gives it as invocations[].detail, while the model saw only the
// code.
func TestRunsShowRefusedCallDetail(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_del00001", Name: "query_mysql", Args: `{"input":{"database":"orders","sql":"DELETE FROM orders"}}`}}},
		ollamatest.Turn{Content: []string{noConclusion}},
	)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, out, errOut := cli(t, env, "--demo", "-o", "json", "diagnose", "why do orders fail?")
	if code != ExitFallback {
		t.Fatalf("diagnose: exit %d, want %d (FALLBACK): %s", code, ExitFallback, errOut)
	}
	var run struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || run.RunID == "" {
		t.Fatalf("diagnose -o json: %v\n%s", err, out)
	}
	const reason = "DELETE is not a read: only SELECT, SHOW, DESCRIBE and EXPLAIN are admitted"
	for _, req := range srv.ChatRequests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, reason) {
				t.Fatalf("the model was shown the audit-only reason: %s", m.Content)
			}
		}
	}

	code, text, errOut := cli(t, env, "runs", "show", run.RunID)
	if code != ExitOK {
		t.Fatalf("runs show: exit %d: %s", code, errOut)
	}
	lines := strings.Split(text, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "call_del00001") })
	if at < 0 || at+1 == len(lines) || !strings.Contains(lines[at], "ERROR NOT_READ_ONLY") ||
		!strings.Contains(lines[at+1], "↳ ") || !strings.Contains(lines[at+1], reason) {
		t.Fatalf("runs show does not print the reason under the refused call:\n%s", text)
	}

	code, js, errOut := cli(t, env, "runs", "show", run.RunID, "-o", "json")
	if code != ExitOK {
		t.Fatalf("runs show -o json: exit %d: %s", code, errOut)
	}
	var detail struct {
		Invocations []struct {
			ToolCallID string  `json:"tool_call_id"`
			ErrorCode  *string `json:"error_code"`
			Detail     *string `json:"detail"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal([]byte(js), &detail); err != nil {
		t.Fatal(err)
	}
	if len(detail.Invocations) != 1 {
		t.Fatalf("%d invocations, want the refused call: %s", len(detail.Invocations), js)
	}
	inv := detail.Invocations[0]
	if inv.ToolCallID != "call_del00001" || inv.ErrorCode == nil || *inv.ErrorCode != "NOT_READ_ONLY" || inv.Detail == nil || !strings.Contains(*inv.Detail, reason) {
		t.Fatalf("invocations[0] = %+v, want the refused call with its reason as detail", inv)
	}
}

// emptyStore creates the run store env names, with no run in it.
func emptyStore(t *testing.T, env map[string]string) {
	t.Helper()
	st, err := runstore.Open(context.Background(), env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
