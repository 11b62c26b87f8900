package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// timelineRun is the payment-timeout diagnosis that builds the timeline
// first (issue 39: the prompt asks for it first), then reads on.
func timelineRun(t *testing.T) []ollamatest.Turn {
	return []ollamatest.Turn{
		skill("call_e2e0001", "diagnose-payment-timeout"),
		ev("call_tl00001", "build_timeline", "", `{"since":"2h"}`),
		ev("call_e2e0002", "query_logs", "call_tl00001", inPaymentErrors),
		ev("call_e2e0003", "query_logs", "call_e2e0002", inOrderTimeouts),
		ev("call_e2e0004", "query_mysql", "call_e2e0003", inSlowSince14),
		ev("call_e2e0005", "lookup_knowledge", "call_e2e0004", inPaymentKB),
		text(draftText(t, "payment-timeout")), verdict("SUPPORTED"),
	}
}

// storedTimeline is the result of the run's build_timeline call, as runs
// show -o json gives its observation.
func storedTimeline(t *testing.T, e *env, db, run string) json.RawMessage {
	t.Helper()
	r := e.run(t, "--db", db, "runs", "show", run, "-o", "json")
	var shown struct {
		Invocations []struct {
			Tool        string          `json:"tool"`
			Observation json.RawMessage `json:"observation"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil || r.code != 0 {
		t.Fatalf("runs show %s: %v\n%s", run, err, r)
	}
	for _, inv := range shown.Invocations {
		if inv.Tool == "build_timeline" {
			var obs struct {
				Status string          `json:"evidence_status"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(inv.Observation, &obs); err != nil || obs.Status != "EVIDENCE_FOUND" {
				t.Fatalf("the build_timeline observation of %s (%v): %s", run, err, inv.Observation)
			}
			return obs.Result
		}
	}
	t.Fatalf("run %s made no build_timeline call\n%s", run, r)
	return nil
}

// TestEvalPackTimelineRoundTrip: a diagnosis that built a timeline is
// frozen with the timeline's reads (the logs over its window and the hour
// before it), and eval, with the workspace gone, builds the very same
// timeline from the pack.
func TestEvalPackTimelineRoundTrip(t *testing.T) {
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	ws, cfg := frozenWorkspace(t, e)
	db := filepath.Join(e.dir, "runs.db")
	srv.Script(timelineRun(t)...)
	r := e.run(t, "--db", db, "diagnose", "-o", "json", queryPayment)
	out := decodeOutput(t, r)
	if r.code != 0 || out.ReleaseOutcome != "SUCCESS" {
		t.Fatalf("the diagnosis: %s", r)
	}
	original := storedTimeline(t, e, db, out.RunID)
	var tl struct {
		Events []struct {
			Kind string `json:"kind"`
		} `json:"events"`
	}
	if err := json.Unmarshal(original, &tl); err != nil || len(tl.Events) < 3 {
		t.Fatalf("the original timeline (%v) has too few events to compare: %s", err, original)
	}
	packs := filepath.Join(e.dir, "packs")
	r = e.run(t, "--db", db, "eval", "pack", "last", "--dir", packs, "--id", "payment-timeline", "--root-cause", "pool, connection")
	if r.code != 0 || !strings.Contains(r.stdout, "timeline: 1 build_timeline call(s)") || !strings.Contains(r.stdout, "logs demo: 6 file(s)") {
		t.Fatalf("eval pack: %s", r)
	}
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	delete(e.vars, "SUPERBIZ_CONFIG")
	delete(e.vars, "SUPERBIZ_NOW")
	srv.Script(timelineRun(t)...)
	evalDB := filepath.Join(e.dir, "eval.db")
	r = e.run(t, "--db", evalDB, "eval", "--suite", packs, "--record", "-o", "json")
	res := decodeEval(t, r)
	if r.code != 0 || len(res.Packs) != 1 || !res.Packs[0].Pass {
		t.Fatalf("eval: %s", r)
	}
	replayed := storedTimeline(t, e, evalDB, "last")
	if string(replayed) != string(original) {
		t.Errorf("eval built another timeline from the pack:\n%s\nwant\n%s", replayed, original)
	}
}
