package cmd

import (
	"context"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

var replayLine = regexp.MustCompile(`^(identical|different): replay (r_\S+) of (r_\S+) \(`)

// A replay of the demo run plays the recorded rounds and observations, is
// stored as a new run linked to the original, and is identical; so is a
// replay that re-queries today's (unchanged) demo sources.
func TestReplayDemoIdentical(t *testing.T) {
	env := diagnoseEnv(t)
	success, failed := demoRuns(t, env)
	id := success["run_id"].(string)

	code, out, errOut := cli(t, env, "--demo", "replay", id)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m := replayLine.FindStringSubmatch(out)
	if m == nil || m[1] != "identical" || m[3] != id || m[2] == id || strings.Count(out, "\n") != 1 {
		t.Fatalf("stdout %q, want one \"identical: replay r_… of %s\" line", out, id)
	}
	if !strings.Contains(errOut, "[tool] query_mysql") || !strings.Contains(errOut, "[done]") {
		t.Errorf("no progress lines on stderr:\n%s", errOut)
	}
	replayID := m[2]

	code, out, _ = cli(t, env, "runs", "show", replayID, "-o", "json")
	shown := jsonObject(t, out)
	if code != ExitOK || shown["replay_of"] != id || shown["release_outcome"] != "SUCCESS" || shown["model"] != "replay of "+id {
		t.Errorf("replay run: exit %d, replay_of %v, outcome %v, model %v", code, shown["replay_of"], shown["release_outcome"], shown["model"])
	}
	if shown["clock"] != "2026-11-28T15:00:00Z" {
		t.Errorf("replay clock = %v, want the recorded one", shown["clock"])
	}
	if invs := shown["invocations"].([]any); len(invs) != 6 {
		t.Errorf("replay has %d invocations, want 6", len(invs))
	}

	for _, args := range [][]string{{"--demo", "replay", id, "-o", "json"}, {"--demo", "replay", "--live-tools", id, "-o", "json"}} {
		code, out, errOut = cli(t, env, args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d\n%s\n%s", args, code, out, errOut)
		}
		if strings.Contains(errOut, "[tool]") {
			t.Errorf("%q: progress lines with -o json:\n%s", args, errOut)
		}
		got := jsonObject(t, out)
		for _, k := range []string{"original_run_id", "replay_run_id", "identical", "differences", "result"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%q: lacks %q", args, k)
			}
		}
		if len(got) != 5 || got["original_run_id"] != id || got["identical"] != true {
			t.Errorf("%q: %v", args, got)
		}
		if d, ok := got["differences"].([]any); !ok || len(d) != 0 {
			t.Errorf("%q: differences = %v, want []", args, got["differences"])
		}
		res := got["result"].(map[string]any)
		if res["run_id"] != got["replay_run_id"] || res["release_outcome"] != "SUCCESS" || res["answer"] != success["answer"] {
			t.Errorf("%q: result = %v", args, res)
		}
	}

	// A failed run replays to the same failure: identical too.
	code, out, errOut = cli(t, env, "--demo", "replay", failed["run_id"].(string))
	if m := replayLine.FindStringSubmatch(out); code != ExitOK || m == nil || m[1] != "identical" || !strings.Contains(out, "(FAILED · MODEL_UNAVAILABLE)") {
		t.Errorf("replay of the failed run: exit %d\n%s\n%s", code, out, errOut)
	}

	// The listing shows the replays (and only real runs).
	_, out, _ = cli(t, env, "runs", "-o", "json", "--limit", "100")
	runs := jsonArray(t, out)
	replays := 0
	for _, r := range runs {
		if r["replay_of"] != nil {
			replays++
		}
	}
	if len(runs) != 6 || replays != 4 {
		t.Errorf("%d runs with %d replays, want 6 with 4", len(runs), replays)
	}
}

// The store knows a run was a demo run: without --demo, replay says so and
// uses the demo workspace by itself, and the replay is identical.
func TestReplayDemoRunWithoutFlag(t *testing.T) {
	env := diagnoseEnv(t)
	success, _ := demoRuns(t, env)
	id := success["run_id"].(string)
	code, out, errOut := cli(t, env, "replay", id)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "run "+id+" was a demo run: replaying it on the demo workspace") || strings.Contains(errOut, "not configured here") {
		t.Errorf("stderr does not say the demo workspace is used, or warns of missing tools:\n%s", errOut)
	}
	if m := replayLine.FindStringSubmatch(out); m == nil || m[1] != "identical" {
		t.Errorf("stdout %q, want \"identical\"", out)
	}
	code, out, _ = cli(t, env, "runs", "show", id, "-o", "json")
	if settings, _ := jsonObject(t, out)["budget"].(map[string]any); code != ExitOK || settings["demo"] != true {
		t.Errorf("runs show: exit %d, budget %v, want demo true", code, jsonObject(t, out)["budget"])
	}
}

// With --live-model a model that calls a tool with an input that was never
// recorded gets evidence_status ERROR, error_code UNRECORDED for that call;
// the replay differs and exits 1, without crashing.
func TestReplayLiveModelUnrecordedCall(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		env := diagnoseEnv(t)
		success, _ := demoRuns(t, env)
		id := success["run_id"].(string)

		srv := providertest.Start(t, prov)
		srv.Script(ollamatest.Turn{
			ToolCalls:       []ollamatest.ToolCall{{ID: "call_live0001", Name: "query_logs", Args: `{"input":{"service":"payment-service","level":"ERROR","contains":"deadlock","since":"1h","limit":5}}`}},
			PromptEvalCount: 100, EvalCount: 10,
		})
		draft := `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":["Check the database lock waits."],"limitations":{"scope":"payment-service logs","missing_info":["lock metrics"]}}`
		srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
			return ollamatest.Turn{Content: []string{draft}, PromptEvalCount: 100, EvalCount: 10}
		})

		maps.Copy(env, srv.Env())
		code, out, errOut := cli(t, env, "--demo", "replay", "--live-model", id, "-o", "json")
		if code != ExitFailed {
			t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFailed, out, errOut)
		}
		got := jsonObject(t, out)
		if got["identical"] != false || got["original_run_id"] != id {
			t.Fatalf("report = %v", got)
		}
		diffs := strings.Join(toStrings(got["differences"].([]any)), "\n")
		for _, want := range []string{"release_outcome: \"SUCCESS\" → \"FALLBACK\"", "tool calls: 6 recorded, 1 replayed", "call_live0001 query_logs", "UNRECORDED"} {
			if !strings.Contains(diffs, want) {
				t.Errorf("differences lack %q:\n%s", want, diffs)
			}
		}
		if srv.ChatCount() < 2 {
			t.Errorf("the live model was called %d times, want at least 2", srv.ChatCount())
		}

		code, out, _ = cli(t, env, "runs", "show", got["replay_run_id"].(string), "-o", "json")
		shown := jsonObject(t, out)
		invs := shown["invocations"].([]any)
		if code != ExitOK || len(invs) != 1 {
			t.Fatalf("replay run: exit %d, invocations %v", code, invs)
		}
		inv := invs[0].(map[string]any)
		if inv["tool_call_id"] != "call_live0001" || inv["evidence_status"] != "ERROR" || inv["error_code"] != "UNRECORDED" {
			t.Errorf("unrecorded call = %v", inv)
		}
		if shown["replay_of"] != id || shown["model"] != "qwen3:8b" {
			t.Errorf("replay_of %v, model %v", shown["replay_of"], shown["model"])
		}

		// The text form prints the verdict and one line per difference.
		srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_live0002", Name: "query_logs", Args: `{"input":{"service":"payment-service","level":"ERROR","contains":"deadlock","since":"1h","limit":5}}`}}})
		code, out, _ = cli(t, env, "--demo", "replay", "--live-model", id)
		if m := replayLine.FindStringSubmatch(out); code != ExitFailed || m == nil || m[1] != "different" || !strings.Contains(out, "  - tool call 1: call_demo0001 read_skill") {
			t.Errorf("text: exit %d\n%s", code, out)
		}
	})
}

func toStrings(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i], _ = x.(string)
	}
	return out
}

// Runs that cannot be replayed are usage errors (exit 2) with a clear reason.
func TestReplayRefusals(t *testing.T) {
	env := diagnoseEnv(t)
	ctx := context.Background()
	store, err := runstore.Open(ctx, env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateSession(ctx, "s_1"); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateRun(ctx, runstore.NewRun{ID: "r_chat", SessionID: "s_1", Query: "hello", Intent: runrecord.IntentSystemChat}); err != nil {
		t.Fatal(err)
	}
	if err := store.FinishRun(ctx, "r_chat", runstore.Finish{Status: runrecord.RunStatusSuccess, StopReason: "COMPLETED", Answer: "hi"}); err != nil {
		t.Fatal(err)
	}
	// Still RUNNING, owned by this (live) process, so not recovered on open.
	if err := store.CreateRun(ctx, runstore.NewRun{ID: "r_running", SessionID: "s_1", Query: "slow", Intent: runrecord.IntentDiagnosis}); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "r_nope"}, `unknown run "r_nope" in ` + env["SUPERBIZ_DB"]},
		{[]string{"replay", "r_chat"}, "run r_chat has intent SYSTEM_CHAT: only DIAGNOSIS and TIMELINE runs can be replayed"},
		{[]string{"replay", "r_running", "-o", "json"}, "run r_running is still running"},
		{[]string{"replay"}, "superbiz: replay takes one RUN_ID, got 0 argument(s)"},
	} {
		code, out, errOut := cli(t, env, tt.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}
