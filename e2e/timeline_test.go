package e2e

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/fixture"
)

// timelineJSON is `timeline -o json` as SPEC gives it.
type timelineJSON struct {
	RunID  string `json:"run_id"`
	Window struct {
		Start, End time.Time
	} `json:"window"`
	Events []struct {
		At      time.Time `json:"at"`
		Kind    string    `json:"kind"`
		Source  string    `json:"source"`
		Service string    `json:"service"`
		Summary string    `json:"summary"`
		// Before and After are numbers, a deploy's versions, or null.
		Before     any    `json:"before"`
		After      any    `json:"after"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"events"`
	Coverage []struct {
		Detector, Source, Status, Note string
		ToolCallID                     string `json:"tool_call_id"`
	} `json:"coverage"`
}

// TestTimelineDemo builds the demo's timeline through the binary: the
// Redis and payment incidents' error bursts within a minute of their true
// starts, payment-service's restart on its running version, then its
// deploy of 2.14.0 (from 2.13.4) before the payment incident, nothing
// else; the
// timeline is a stored TIMELINE run whose recorded calls are the ones each
// event cites; the text fits 80 columns.
func TestTimelineDemo(t *testing.T) {
	e := newEnv(t, "http://127.0.0.1:1")
	start, end := "2026-11-28T09:00:00Z", "2026-11-28T15:00:00Z"
	r := e.run(t, "timeline", "--demo", "--start", start, "--end", end, "-o", "json")
	if r.code != 0 {
		t.Fatal(r)
	}
	var tl timelineJSON
	if err := json.Unmarshal([]byte(r.stdout), &tl); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	truth := map[string]time.Time{}
	for _, inc := range demo.Incidents() {
		if inc.Start.After(tl.Window.Start) && inc.Start.Before(tl.Window.End) {
			truth[inc.Service] = inc.Start
		}
	}
	var bursts []time.Time
	restarts, deploys := 0, 0
	for _, ev := range tl.Events {
		if ev.ToolCallID == "" || ev.Summary == "" {
			t.Errorf("event without its call or summary: %+v", ev)
		}
		switch ev.Kind {
		case "error_burst":
			bursts = append(bursts, ev.At)
			before, ok1 := ev.Before.(float64)
			after, ok2 := ev.After.(float64)
			if !ok1 || !ok2 || after <= before {
				t.Errorf("burst %+v: want the rate before and a higher one after", ev)
			}
		case "restart":
			restarts++
			if ev.Service != "payment-service" || ev.Before != nil || ev.After != nil || !ev.At.Equal(time.Date(2026, 11, 28, 12, 21, 37, 402e6, time.UTC)) {
				t.Errorf("restart %+v: want payment-service's restart on its running version at 12:21:37.402", ev)
			}
		case "deploy":
			deploys++
			if ev.Service != "payment-service" || ev.Before != "2.13.4" || ev.After != "2.14.0" || !ev.At.Equal(time.Date(2026, 11, 28, 13, 58, 21, 14e6, time.UTC)) {
				t.Errorf("deploy %+v: want payment-service's 2.13.4 -> 2.14.0 at its start-up banner, 13:58:21.014", ev)
			}
		default:
			t.Errorf("unexpected event %+v", ev)
		}
	}
	want := []time.Time{truth["user-service"], truth["order-service"]}
	if len(bursts) != len(want) {
		t.Fatalf("bursts at %v, want at %v", bursts, want)
	}
	for i := range want {
		if d := bursts[i].Sub(want[i]); d < 0 || d > time.Minute {
			t.Errorf("burst %d at %s, %s after its incident's start %s: want within one step (1m)", i, bursts[i], d, want[i])
		}
	}
	if restarts != 1 || deploys != 1 {
		t.Errorf("%d restarts and %d deploys, want payment-service's one each", restarts, deploys)
	}

	// the run is stored, and every cited call is one of its invocations
	show := e.run(t, "runs", "show", tl.RunID, "-o", "json")
	if show.code != 0 {
		t.Fatal(show)
	}
	var run struct {
		Intent      string `json:"intent"`
		Status      string `json:"status"`
		Invocations []struct {
			ToolCallID string `json:"tool_call_id"`
			Tool       string `json:"tool"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &run); err != nil {
		t.Fatal(err)
	}
	if run.Intent != "TIMELINE" || run.Status != "SUCCESS" {
		t.Errorf("stored run: intent %s status %s", run.Intent, run.Status)
	}
	calls := map[string]string{}
	for _, inv := range run.Invocations {
		calls[inv.ToolCallID] = inv.Tool
	}
	for _, ev := range tl.Events {
		if calls[ev.ToolCallID] != "query_logs" {
			t.Errorf("event %s cites %s, which the stored run holds as %q", ev.Kind, ev.ToolCallID, calls[ev.ToolCallID])
		}
	}
	for _, c := range tl.Coverage {
		if c.Status != "read" && c.Note == "" {
			t.Errorf("coverage %+v: a detector that did not read everything says why", c)
		}
	}

	text := e.run(t, "timeline", "--demo", "--start", start, "--end", end)
	if text.code != 0 {
		t.Fatal(text)
	}
	for _, l := range strings.Split(text.stdout, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
}

// TestTimelineRefusals: flags that cannot make a window, and --alert
// without an Alertmanager, are usage errors (exit 2) naming the problem.
func TestTimelineRefusals(t *testing.T) {
	e := newEnv(t, "http://127.0.0.1:1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"timeline", "--demo", "--start", "2026-11-28T15:00:00Z", "--end", "2026-11-28T14:00:00Z"}, "is not before"},
		{[]string{"timeline", "--demo", "--since", "48h"}, "out of range"},
		{[]string{"timeline", "--demo", "--start", "yesterday", "--end", "2026-11-28T14:00:00Z"}, "--start"},
		{[]string{"timeline", "--demo", "--alert", "HighLatency"}, "no Alertmanager configured"},
	} {
		r := e.run(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("want exit 2 saying %q:\n%s", c.want, r)
		}
	}
}

// TestTimelineReplayOfAnOlderRun: a timeline run recorded before the
// restart detector read "listening" and "ready" as well as "start"
// (27c8fc8; the store in testdata was recorded by 27c8fc8^'s binary:
// `timeline --demo --since 6h`, then `--since 2h`) replays to the same
// events, and says why it is not identical: the reads it has no recorded
// observation for, and the one coverage line that says so.
func TestTimelineReplayOfAnOlderRun(t *testing.T) {
	e := newEnv(t, "http://127.0.0.1:1")
	fixture.Gunzip(t, filepath.Join("testdata", "replay", "timeline-before-27c8fc8.db.gz"), e.vars["SUPERBIZ_DB"], time.Now())
	for _, run := range []struct{ id, start string }{{"1", "2026-11-28T09:00:00Z"}, {"2", "2026-11-28T12:00:00Z"}} {
		r := e.run(t, "replay", run.id, "-o", "json")
		var out replayOutput
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || out.Identical {
			t.Fatalf("run %s: want exit 1, different: %v\n%s", run.id, err, r)
		}
		unrecorded := 0
		for _, d := range out.Differences {
			switch {
			case strings.HasPrefix(d, "tool calls: "):
			case strings.Contains(d, "(none) → ") && strings.HasSuffix(d, "[ERROR UNRECORDED]"):
				unrecorded++
				if !strings.Contains(d, `"contains":"listening","start":"`+run.start) && !strings.Contains(d, `"contains":"ready","start":"`+run.start) {
					t.Errorf("run %s: an unrecorded read other than listening's or ready's: %s", run.id, d)
				}
			case strings.HasPrefix(d, "timeline differs: + "):
				// only the restart detector's coverage line is new: no event
				if added := strings.TrimPrefix(d, "timeline differs: + "); added != "### Not fully read" &&
					!strings.HasPrefix(added, `- restart on demo: partial (the lines holding "listening" were not read: the call failed (UNRECORDED)`) {
					t.Errorf("run %s: the replay's timeline adds %q", run.id, added)
				}
			default:
				t.Errorf("run %s: difference %q; want the unrecorded reads and the coverage line only (the same events)", run.id, d)
			}
		}
		if unrecorded != 2 {
			t.Errorf("run %s: %d unrecorded reads named, want listening's and ready's:\n%q", run.id, unrecorded, out.Differences)
		}
	}
}

// TestTimelineReplay: `replay` of a TIMELINE run builds the timeline again
// from the recorded observations (the same calls, the same events, a new
// run linked to the original), and says so when a recorded observation
// no longer matches.
func TestTimelineReplay(t *testing.T) {
	e := newEnv(t, "http://127.0.0.1:1")
	r := e.run(t, "timeline", "--demo", "--start", "2026-11-28T12:00:00Z", "--end", "2026-11-28T15:00:00Z", "-o", "json")
	var tl timelineJSON
	if err := json.Unmarshal([]byte(r.stdout), &tl); err != nil || r.code != 0 || len(tl.Events) == 0 {
		t.Fatalf("%v\n%s", err, r)
	}
	assertReplay(t, e, tl.RunID)
	r = e.run(t, "--demo", "replay", tl.RunID, "-o", "json")
	var rep struct {
		Result struct {
			Intent   string       `json:"intent"`
			Timeline timelineJSON `json:"timeline"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s", err, r)
	}
	if rep.Result.Intent != "TIMELINE" || !reflect.DeepEqual(rep.Result.Timeline.Events, tl.Events) || !reflect.DeepEqual(rep.Result.Timeline.Coverage, tl.Coverage) {
		t.Errorf("the replayed timeline:\n%+v\nwant\n%+v", rep.Result, tl)
	}
}
