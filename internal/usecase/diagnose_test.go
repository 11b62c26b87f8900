package usecase

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/skills"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// demoDeps wires the real tools over a materialized demo workspace and a
// real run store, the way cmd does for --demo.
// openStore opens a run store at path with the knowledge tables registered,
// as the binary does, closed when the test ends.
func openStore(t testing.TB, path string) (*runstore.Store, *runstore.Tables) {
	t.Helper()
	store, err := runstore.Open(context.Background(), path, runstore.Component{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	tables, err := store.Tables(knowledge.SchemaName)
	if err != nil {
		t.Fatal(err)
	}
	return store, tables
}

func demoDeps(t *testing.T, m model.ChatModel) (*Deps, []tools.Adapter, tools.Playbooks) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := demo.Materialize(ctx, filepath.Join(dir, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	store, tables := openStore(t, filepath.Join(dir, "superbiz.db"))
	lt, err := logs.New(ws.LogSources)
	if err != nil {
		t.Fatal(err)
	}
	dsn, err := sqlquery.NewDSN(sqlquery.DriverSQLite, ws.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlquery.New([]sqlquery.Database{{Name: ws.DBName, Driver: sqlquery.DriverSQLite, DSN: dsn, MaxRows: 50, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	kt := knowledge.New(knowledge.NewIndex(tables, []string{ws.RunbooksDir}))
	cat, err := skills.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []timeline.LogSource
	for _, s := range ws.LogSources {
		srcs = append(srcs, timeline.LogSource{Name: s.Name, MaxWindow: s.MaxWindow})
	}
	tt, err := timeline.NewTool([]tools.Adapter{lt}, srcs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	adapters := []tools.Adapter{kt, lt, st, tt}
	reg, err := harness.NewToolset(adapters, cat)
	if err != nil {
		t.Fatal(err)
	}
	return &Deps{
		Store: store, Model: m, ModelName: "test", Host: "http://test", Tools: reg,
		Budget: harness.DefaultBudget(), Limits: agent.DefaultLimits(), Language: "en",
		Clock: harness.FixedClock{T: demo.Now()},
	}, adapters, cat
}

func TestDemoTranscriptSucceedsAndReplaysIdentically(t *testing.T) {
	d, adapters, cat := demoDeps(t, replay.New(demo.Transcript()))
	ctx := context.Background()
	var steps []timeline.Detected
	d.Events = harness.SinkFunc(func(ev harness.Event) {
		if p, ok := ev.(harness.ToolCallProgress); ok {
			if s, ok := p.Step.(timeline.Detected); ok && p.ToolCallID == demo.TimelineCallID {
				steps = append(steps, s)
			}
		}
	})
	out, err := d.Diagnose(ctx, DiagnoseRequest{Query: demo.Query})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "SUCCESS" || out.ReleaseOutcome != "SUCCESS" || out.Result == nil {
		t.Fatalf("outcome %s/%s stop %s error %+v\n%s", out.Status, out.ReleaseOutcome, out.StopReason, out.Error, out.Answer)
	}
	// the demo's timeline call reported each detector as it finished: the
	// three logs detectors of its one source, with the events the
	// diagnosis carries
	if out.Timeline == nil || len(steps) != len(out.Timeline.Coverage) || len(steps) != 3 {
		t.Fatalf("%d progress steps for the timeline %+v", len(steps), out.Timeline)
	}
	n := 0
	for _, s := range steps {
		n += len(s.Events)
	}
	if n != len(out.Timeline.Events) || n == 0 {
		t.Fatalf("the steps reported %d events, the timeline holds %d", n, len(out.Timeline.Events))
	}
	for _, id := range []string{"call_demo0002", "call_demo0004"} {
		if strings.Contains(out.Answer, id) {
			t.Fatalf("answer leaks %s", id)
		}
	}
	if len(out.Checks) != 5 || out.Usage.ModelCalls != 7 || out.Usage.ToolCalls != 5 {
		t.Fatalf("checks %d usage %+v", len(out.Checks), out.Usage)
	}
	run, err := d.Store.GetRun(ctx, out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Invocations) != 6 || len(run.ModelRounds) != 7 || run.Lifecycle != "COMPLETED" || len(run.GuardReviews) != 2 {
		t.Fatalf("stored: %d invocations, %d rounds, lifecycle %s, %d reviews", len(run.Invocations), len(run.ModelRounds), run.Lifecycle, len(run.GuardReviews))
	}

	rep, err := d.Replay(ctx, out.RunID, ReplayOptions{Adapters: adapters, Playbooks: cat})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Identical {
		t.Fatalf("replay differs: %v", rep.Differences)
	}
	again, _ := d.Store.GetRun(ctx, rep.ReplayRunID)
	if again.ReplayOf != out.RunID {
		t.Fatalf("replay_of = %q", again.ReplayOf)
	}
}

// A follow-up in the same session carries the last safe diagnosis as its
// PreviousTurn; a newer FALLBACK run never replaces it.
func TestFollowUpCarriesPreviousTurn(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		d, _, _ := demoDeps(t, replay.New(demo.Transcript()))
		ctx := context.Background()
		first, err := d.Diagnose(ctx, DiagnoseRequest{Query: demo.Query})
		if err != nil || first.ReleaseOutcome != "SUCCESS" {
			t.Fatalf("first: %v %+v", err, first.Error)
		}
		srv := providertest.Start(t, prov)
		d.Model = srv.Client()
		noConclusion := `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing checked","missing_info":["which endpoint"]}}`
		srv.Script(ollamatest.Turn{Content: []string{noConclusion}}, ollamatest.Turn{Content: []string{noConclusion}})
		second, err := d.Diagnose(ctx, DiagnoseRequest{Query: "is it still happening?", Continue: true})
		if err != nil || second.SessionID != first.SessionID || second.ReleaseOutcome != "FALLBACK" {
			t.Fatalf("second: %v session %s outcome %s", err, second.SessionID, second.ReleaseOutcome)
		}
		third, err := d.Diagnose(ctx, DiagnoseRequest{Query: "and now?", SessionID: first.SessionID})
		if err != nil || third.SessionID != first.SessionID {
			t.Fatalf("third: %v", err)
		}
		reqs := srv.ChatRequests()
		for i, want := range []string{"is it still happening?", "and now?"} {
			var in struct {
				Query        string              `json:"query"`
				PreviousTurn *agent.PreviousTurn `json:"previous_turn"`
			}
			if err := json.Unmarshal([]byte(reqs[i].Messages[1].Content), &in); err != nil {
				t.Fatal(err)
			}
			if in.Query != want || in.PreviousTurn == nil || in.PreviousTurn.Query != demo.Query || in.PreviousTurn.Conclusion == nil {
				t.Fatalf("request %d input = %s", i, reqs[i].Messages[1].Content)
			}
		}
		// Another session starts with no previous turn.
		srv.Script(ollamatest.Turn{Content: []string{noConclusion}})
		if _, err := d.Diagnose(ctx, DiagnoseRequest{Query: "new problem"}); err != nil {
			t.Fatal(err)
		}
		last := srv.ChatRequests()[2].Messages[1].Content
		if !strings.HasSuffix(last, `"previous_turn":null}`) {
			t.Fatalf("new session input = %s", last)
		}
	})
}

func TestUnknownSession(t *testing.T) {
	d, _, _ := demoDeps(t, replay.New(nil))
	if _, err := d.Diagnose(context.Background(), DiagnoseRequest{Query: "x", SessionID: "s_nope"}); err == nil || !strings.Contains(err.Error(), `unknown session "s_nope"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestDiagnoseOnStart: the run-start hook (the same StartFunc Chat takes)
// is called once, with the stored RUNNING run, before RunStarted is emitted.
func TestDiagnoseOnStart(t *testing.T) {
	d, _, _ := demoDeps(t, replay.New(demo.Transcript()))
	ctx := context.Background()
	var seen []string
	d.Events = harness.SinkFunc(func(ev harness.Event) {
		if _, ok := ev.(harness.RunStarted); ok {
			seen = append(seen, "RunStarted")
		}
	})
	var startedRun string
	out, err := d.Diagnose(ctx, DiagnoseRequest{Query: demo.Query, OnStart: func(sessionID, runID string, cancel func()) {
		seen = append(seen, "OnStart")
		startedRun = runID
		r, err := d.Store.GetRun(ctx, runID)
		if err != nil || r.Status != runrecord.RunStatusRunning || r.SessionID != sessionID || cancel == nil {
			t.Errorf("at OnStart the stored run is %+v, %v; want RUNNING in session %s, with a cancel", r, err, sessionID)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if startedRun != out.RunID || !slices.Equal(seen, []string{"OnStart", "RunStarted"}) {
		t.Fatalf("OnStart got run %q (output %q), order %q", startedRun, out.RunID, seen)
	}
}
