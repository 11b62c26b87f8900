package evalpack

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The tests of this file kill or cover the mutants gremlins chose in this
// package (issue 34, docs/MUTATION.md).

// The scenario a run gives: its title (the alert's name, the question's
// first line, else the run), the --root-cause groups (blank alternatives
// dropped, a group of none refused) and the outcome a pack can expect.
func TestNewScenario(t *testing.T) {
	alertQuery := alertHead + "HighErrorRate\nStarted: 2026-11-20T09:12:00Z. Diagnosis clock: 2026-11-20T10:12:00Z\nLabels: alertname=HighErrorRate, service=checkout\n"
	for _, tt := range []struct {
		name       string
		query      string
		status     runrecord.RunStatus
		released   runrecord.Outcome
		opts       Options
		wantTitle  string
		wantCauses [][]string
		wantErr    string
	}{
		{name: "question", query: "  checkout 502?\nsince 9:00", released: runrecord.OutcomeFallback, wantTitle: "checkout 502?"},
		{name: "alert", query: alertQuery, released: runrecord.OutcomeFallback, wantTitle: "alert HighErrorRate"},
		{name: "blank question", query: " \n ", released: runrecord.OutcomeFallback, wantTitle: "run r_7"},
		{name: "root causes", query: "q", released: runrecord.OutcomeSuccess,
			opts: Options{RootCauses: []string{"disk, ,full", "ENOSPC"}}, wantTitle: "q", wantCauses: [][]string{{"disk", "full"}, {"ENOSPC"}}},
		{name: "blank root cause", query: "q", released: runrecord.OutcomeSuccess, opts: Options{RootCauses: []string{" , "}}, wantErr: `--root-cause " , " holds no word`},
		{name: "success without root cause", query: "q", released: runrecord.OutcomeSuccess, wantErr: "says which root cause it expects"},
		{name: "outcome given", query: "q", released: runrecord.OutcomeSuccess, opts: Options{Outcome: runrecord.OutcomeFallback}, wantTitle: "q"},
		{name: "no released outcome", query: "q", status: runrecord.RunStatusFailed, wantErr: "ended FAILED, which no pack can expect"},
		{name: "unexpected outcome", query: "q", status: runrecord.RunStatusSuccess, released: "NO_ANSWER", wantErr: "ended NO_ANSWER,"},
	} {
		run := &runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_7", Query: tt.query, Status: tt.status, ReleaseOutcome: tt.released}}
		sc, err := newScenario(run, "p", tt.opts)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if sc.Title != tt.wantTitle || !slices.EqualFunc(sc.Expect.RootCauseAny, tt.wantCauses, slices.Equal) {
			t.Errorf("%s: title %q, root causes %q; want %q, %q", tt.name, sc.Title, sc.Expect.RootCauseAny, tt.wantTitle, tt.wantCauses)
		}
	}
}

// A SUCCESS pack expects only the evidence the released findings cite; a
// SUCCESS run whose answer cannot be read expects none; a FALLBACK pack
// expects every source read with evidence.
func TestEvidenceOfSuccess(t *testing.T) {
	inv := func(id, source string) runrecord.Invocation {
		return runrecord.Invocation{ToolCallID: id, Tool: "query_logs", Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
			EvidenceStatus: tools.EvidenceFound, Input: json.RawMessage(`{"source":"` + source + `"}`)}
	}
	draft := agent.Draft{
		Conclusion:      &agent.Conclusion{Summary: "disk full", RootCause: "disk full", Confidence: "HIGH"},
		Analysis:        []agent.AnalysisItem{{Type: agent.Finding, Claim: "no space", ToolCallIDs: []string{"call_1"}}},
		ActionPlan:      []agent.Action{},
		Recommendations: []string{}, Limitations: agent.Limitations{Scope: "s", MissingInfo: []string{}},
	}
	content, _ := json.Marshal(draft)
	resp, _ := json.Marshal(model.Response{Message: model.Message{Role: "assistant", Content: string(content)}})
	pub, _ := json.Marshal(release.PublishedResult{Query: "why?", Conclusion: draft.Conclusion, Findings: []release.Finding{}, ActionPlan: []agent.Action{},
		Recommendations: []string{}, Limitations: draft.Limitations})
	run := &runstore.RunDetail{
		RunSummary:      runstore.RunSummary{ID: "r_1", ReleaseOutcome: runrecord.OutcomeSuccess},
		PublishedResult: pub,
		Invocations:     []runrecord.Invocation{inv("call_1", "app"), inv("call_2", "db")},
		ModelRounds:     []runrecord.ModelRound{{Seq: 1, Purpose: runrecord.PurposeDiagnosis, Response: resp}},
	}
	if got := evidence(run, runrecord.OutcomeSuccess); !slices.Equal(got, []string{"query_logs:app"}) {
		t.Errorf("SUCCESS expects %v, want the cited source only", got)
	}
	if got := evidence(run, runrecord.OutcomeFallback); !slices.Equal(got, []string{"query_logs:app", "query_logs:db"}) {
		t.Errorf("FALLBACK expects %v, want every source read", got)
	}
	unread := *run
	unread.PublishedResult = json.RawMessage(`{`)
	if got := evidence(&unread, runrecord.OutcomeSuccess); len(got) != 0 {
		t.Errorf("a SUCCESS whose answer does not read expects %v", got)
	}
	fallback := *run
	fallback.ReleaseOutcome = runrecord.OutcomeFallback
	if got := evidence(&fallback, runrecord.OutcomeSuccess); len(got) != 0 {
		t.Errorf("a SUCCESS pack of a run that did not succeed expects %v", got)
	}
}

// An existing pack is refused without --force and replaced with it.
func TestFreezeForce(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Defaults()
	run := &runstore.RunDetail{
		RunSummary: runstore.RunSummary{ID: "r_2", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess,
			ReleaseOutcome: runrecord.OutcomeFallback, Query: "why?"},
		Clock: time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC),
	}
	packs := filepath.Join(dir, "packs")
	old := filepath.Join(packs, "r-2")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "stale.txt"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Freeze(context.Background(), Options{Run: run, Config: &cfg, Dir: packs}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("without --force: %v", err)
	}
	rep, err := Freeze(context.Background(), Options{Run: run, Config: &cfg, Dir: packs, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rep.Dir, "stale.txt")); !os.IsNotExist(err) {
		t.Errorf("--force kept the old pack's file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rep.Dir, "scenario.toml")); err != nil {
		t.Errorf("--force wrote no scenario: %v", err)
	}
}

// defaultID keeps a-z, 0-9 and '-' (upper case lowered) and turns every
// other byte into '-', the bytes next to each range too. (gremlins calls
// the case clauses NOT COVERED: a tagless switch's case expressions lie in
// no coverage block; see docs/MUTATION.md.)
func TestDefaultIDAlphabet(t *testing.T) {
	for in, want := range map[string]string{
		"r_AZaz09-x": "r-azaz09-x",
		"`{/:@[.é":   "--------", // é is one rune, one '-'
	} {
		if got := defaultID(in); got != want {
			t.Errorf("defaultID(%q) = %q, want %q", in, got, want)
		}
	}
}

// pairs keeps a first pair whose key is no label name as it is (only a
// later one joins the value before it), and reads an empty text as none.
func TestPairsFirstPart(t *testing.T) {
	for in, want := range map[string]map[string]string{
		"9x=1, alertname=A": {"9x": "1", "alertname": "A"},
		"=x, b=2, c":        {"": "x", "b": "2, c"},
		"":                  {},
	} {
		if got := pairs(in); !maps.Equal(got, want) {
			t.Errorf("pairs(%q) = %v, want %v", in, got, want)
		}
	}
}

// scenario.toml holds the keys a source sets (metrics_sources) beside the
// scenario's own, and the scenario alone when no source sets one.
func TestWriteScenarioKeys(t *testing.T) {
	run := &runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_3"}}
	sc := &scenarioFile{ID: "p", Title: "t", Tags: []string{Tag}, Now: "2026-11-20T09:30:00Z", Question: "q",
		Expect: expectFile{Outcome: runrecord.OutcomeFallback, Evidence: []string{}}}
	for _, extra := range []map[string]any{nil, {"metrics_sources": []string{"prom"}}} {
		p := &frozen.Pack{Run: run, Dir: t.TempDir()}
		for k, v := range extra {
			p.Scenario(k, v)
		}
		if err := writeScenario(p, sc); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(p.Dir, eval.ScenarioFile))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if _, err := toml.Decode(string(b), &got); err != nil {
			t.Fatalf("%v:\n%s", err, b)
		}
		_, hasMetrics := got["metrics_sources"]
		if got["id"] != "p" || got["question"] != "q" || hasMetrics != (extra != nil) {
			t.Errorf("with keys %v, scenario.toml:\n%s", extra, b)
		}
	}
}
