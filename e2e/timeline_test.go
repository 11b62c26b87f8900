package e2e

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
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

// TestTimelineDemo builds the demo's timeline through the binary: each
// error burst named by its own service, within a minute of an incident's
// start, and the Redis and payment incidents' services' bursts (user-,
// order- and payment-service) within a minute of their true starts,
// payment-service's restart on its running version, then its deploy of
// 2.14.0 (from 2.13.4) before the payment incident, nothing else; the
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
	// each burst is a service's own, within a minute of an incident's
	// start; each incident's service has its burst
	var starts []time.Time
	for _, at := range truth {
		starts = append(starts, at)
	}
	placed := map[string][]time.Time{}
	restarts, deploys := 0, 0
	for _, ev := range tl.Events {
		if ev.ToolCallID == "" || ev.Summary == "" {
			t.Errorf("event without its call or summary: %+v", ev)
		}
		switch ev.Kind {
		case "error_burst":
			before, ok1 := ev.Before.(float64)
			after, ok2 := ev.After.(float64)
			if !ok1 || !ok2 || after <= before {
				t.Errorf("burst %+v: want the rate before and a higher one after", ev)
			}
			if ev.Service == "" || !strings.Contains(ev.Summary, "errors of "+ev.Service+" rose") {
				t.Errorf("burst %+v: want it named by the service whose errors rose", ev)
			}
			if !slices.ContainsFunc(starts, func(s time.Time) bool { d := ev.At.Sub(s); return d >= 0 && d <= time.Minute }) {
				t.Errorf("burst %+v: not within one step (1m) after an incident's start %v", ev, starts)
			}
			placed[ev.Service] = append(placed[ev.Service], ev.At)
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
	for _, svc := range []string{"user-service", "order-service", "payment-service"} {
		at := truth[svc]
		if !slices.ContainsFunc(placed[svc], func(b time.Time) bool { d := b.Sub(at); return d >= 0 && d <= time.Minute }) {
			t.Errorf("%s's incident at %s: its bursts at %v, want one within one step (1m)", svc, at, placed[svc])
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
// TestTimelineDemoDefaultWindow: `timeline --demo` with no window flag
// looks two hours back from the demo's clock, so its payment incident's
// cause, payment-service's deploy of 2.14.0 two minutes before the errors,
// is in it; --since still overrides it.
func TestTimelineDemoDefaultWindow(t *testing.T) {
	e := newEnv(t, "http://127.0.0.1:1")
	for _, c := range []struct {
		args       []string
		start      string
		wantDeploy bool
	}{
		{nil, "2026-11-28T13:00:00Z", true},
		{[]string{"--since", "1h"}, "2026-11-28T14:00:00Z", false},
	} {
		r := e.run(t, append([]string{"timeline", "--demo", "-o", "json"}, c.args...)...)
		var tl timelineJSON
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &tl) != nil {
			t.Fatalf("%v: %s", c.args, r)
		}
		if got := tl.Window.Start.Format(time.RFC3339); got != c.start || tl.Window.End.Format(time.RFC3339) != "2026-11-28T15:00:00Z" {
			t.Errorf("%v: window %s – %s, want %s – 2026-11-28T15:00:00Z", c.args, got, tl.Window.End.Format(time.RFC3339), c.start)
		}
		deploy := false
		for _, ev := range tl.Events {
			deploy = deploy || (ev.Kind == "deploy" && ev.Service == "payment-service" && ev.After == "2.14.0")
		}
		if deploy != c.wantDeploy {
			t.Errorf("%v: payment-service's deploy of 2.14.0 in the timeline = %v, want %v:\n%s", c.args, deploy, c.wantDeploy, r.stdout)
		}
	}
}

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

// TestTimelineReplayOfAnOlderRun: a timeline run recorded by an older
// binary (the store in testdata was recorded by 27c8fc8^'s: `timeline
// --demo --since 6h`, then `--since 2h`), whose detectors read less than
// today's (the restart detector read "start" alone; error bursts were read
// for the whole source, not per service), replays as different and says
// why, never silently: exit 1, every read it has no recorded observation
// for named (listening's and ready's among them), and every event of the
// recording that the replay lacks is either there again at the same time
// and kind (its wording changed) or explained by its detector's coverage
// line, failed or partial, naming the unrecorded call.
func TestTimelineReplayOfAnOlderRun(t *testing.T) {
	e := newEnv(t, "http://127.0.0.1:1")
	fixture.Gunzip(t, filepath.Join("testdata", "replay", "timeline-before-27c8fc8.db.gz"), e.vars["SUPERBIZ_DB"], time.Now())
	for _, run := range []struct{ id, start string }{{"1", "2026-11-28T09:00:00Z"}, {"2", "2026-11-28T12:00:00Z"}} {
		r := e.run(t, "replay", run.id, "-o", "json")
		var out replayOutput
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || out.Identical {
			t.Fatalf("run %s: want exit 1, different: %v\n%s", run.id, err, r)
		}
		var unrecorded, removed, added []string
		for _, d := range out.Differences {
			switch {
			case strings.HasPrefix(d, "tool calls: "), strings.HasPrefix(d, "tool call "):
				if strings.HasSuffix(d, "[ERROR UNRECORDED]") {
					unrecorded = append(unrecorded, d)
				}
			case strings.HasPrefix(d, "timeline differs: - "):
				removed = append(removed, strings.TrimPrefix(d, "timeline differs: - "))
			case strings.HasPrefix(d, "timeline differs: + "):
				added = append(added, strings.TrimPrefix(d, "timeline differs: + "))
			default:
				t.Errorf("run %s: difference %q, neither a call nor a timeline line", run.id, d)
			}
		}
		for _, word := range []string{"listening", "ready"} {
			if !slices.ContainsFunc(unrecorded, func(d string) bool { return strings.Contains(d, `"contains":"`+word+`","start":"`+run.start) }) {
				t.Errorf("run %s: %s's read not named unrecorded in %q", run.id, word, unrecorded)
			}
		}
		// an event row is "| time | kind | service | summary | call |"
		for _, row := range removed {
			f := strings.Split(row, " | ")
			if len(f) < 3 {
				continue
			}
			at, kind := strings.TrimPrefix(f[0], "| "), f[1]
			again := slices.ContainsFunc(added, func(a string) bool { return strings.HasPrefix(a, "| "+at+" | "+kind+" | ") })
			told := slices.ContainsFunc(added, func(a string) bool {
				return strings.HasPrefix(a, "- "+kind+" on demo: ") && strings.Contains(a, "(UNRECORDED)") &&
					(strings.Contains(a, ": failed (") || strings.Contains(a, ": partial ("))
			})
			if !again && !told {
				t.Errorf("run %s: the recording's event %q is gone without a coverage line saying its detector could not read:\n%q", run.id, row, added)
			}
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
