package timeline

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
)

// incidentTool is build_timeline over the incident day's log source.
func incidentTool(t *testing.T) *Tool {
	t.Helper()
	p := incidentDay(t, t.TempDir())
	lt, err := logs.New([]logs.Source{{Name: "app", Paths: []string{p}, MaxWindow: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := NewTool([]tools.Adapter{lt}, []LogSource{{Name: "app", MaxWindow: 24 * time.Hour}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// runTool canonicalises input and executes it as the harness would, and
// checks its progress: one step per coverage line of the result, each
// saying how many lines the whole call gives (Detected.Lines).
func runTool(t *testing.T, tool *Tool, input string, now time.Time, maxBytes int) (tools.Outcome, Timeline) {
	t.Helper()
	c, err := tool.Canonical(json.RawMessage(input))
	if err != nil {
		t.Fatalf("canonical %s: %v", input, err)
	}
	var steps []Detected
	out := tool.Execute(context.Background(), tools.Call{RunID: "r_1", ToolCallID: "call_7", Tool: ToolName, Input: c.Input, Now: now, MaxBytes: maxBytes,
		Progress: func(s tools.Step) { steps = append(steps, s.(Detected)) }})
	defer func() {
		if out.Status == tools.StatusError && out.ErrorCode != tools.CodeUnavailable {
			return // stopped before every detector finished
		}
		for i, s := range steps {
			if s.Lines != len(steps) {
				t.Errorf("step %d (%s) says the call gives %d coverage lines; it reported %d", i+1, s.Line(), s.Lines, len(steps))
			}
		}
	}()
	var tl Timeline
	if out.Result != nil {
		raw, err := json.Marshal(out.Result)
		if err != nil {
			t.Fatal(err)
		}
		if maxBytes > 0 && len(raw) > maxBytes {
			t.Errorf("result of %d bytes over the limit %d", len(raw), maxBytes)
		}
		if err := json.Unmarshal(raw, &tl); err != nil {
			t.Fatal(err)
		}
	}
	return out, tl
}

// build_timeline is the same computation as `superbiz timeline`, its
// window relative to the call's clock, every event and coverage line
// citing the call itself.
func TestToolBuildsTheTimeline(t *testing.T) {
	tool := incidentTool(t)
	now := time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)
	out, tl := runTool(t, tool, `{"since": "1h"}`, now, 8192)
	if out.Status != tools.EvidenceFound {
		t.Fatalf("status %s %s (%v)", out.Status, out.ErrorCode, out.Detail)
	}
	if !tl.Window.Start.Equal(now.Add(-time.Hour)) || !tl.Window.End.Equal(now) || tl.RunID != "" {
		t.Errorf("window %+v run %q: want the hour before the call's clock, no run", tl.Window, tl.RunID)
	}
	kinds := []Kind{}
	for _, e := range tl.Events {
		kinds = append(kinds, e.Kind)
		if e.ToolCallID != "call_7" {
			t.Errorf("event %+v cites %q, want the build_timeline call", e, e.ToolCallID)
		}
	}
	if want := []Kind{Deploy, ErrorBurst, NewError}; strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(want), ",") {
		t.Errorf("kinds %v, want %v: %s", kinds, want, mustJSON(t, tl.Events))
	}
	if tl.Events[1].At.Sub(time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)).Abs() > time.Minute {
		t.Errorf("burst at %s, want 14:00 ±1m", tl.Events[1].At)
	}
	for _, c := range tl.Coverage {
		if c.ToolCallID != "call_7" || c.Status != Read {
			t.Errorf("coverage %+v: want read, citing call_7", c)
		}
	}
}

func kindStrings(ks []Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// A timeline too big for the observation leaves out its latest events and
// says how many; the earliest stay.
func TestToolFitsTheObservation(t *testing.T) {
	tool := incidentTool(t)
	now := time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)
	_, whole := runTool(t, tool, `{"start": "2026-11-20T13:30:00Z", "end": "2026-11-20T14:30:00Z"}`, now, 0)
	raw, _ := json.Marshal(whole)
	out, tl := runTool(t, tool, `{"start": "2026-11-20T13:30:00Z", "end": "2026-11-20T14:30:00Z"}`, now, len(raw)-1)
	if out.Status != tools.EvidenceFound || tl.OmittedEvents == 0 || len(tl.Events)+tl.OmittedEvents != len(whole.Events) {
		t.Fatalf("status %s, %d events, %d omitted; want some of %d left out", out.Status, len(tl.Events), tl.OmittedEvents, len(whole.Events))
	}
	if !reflect.DeepEqual(tl.Events[0], whole.Events[0]) {
		t.Errorf("first event %+v, want the earliest kept: %+v", tl.Events[0], whole.Events[0])
	}
	out, _ = runTool(t, tool, `{"since": "1h"}`, now, 200)
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeInternal {
		t.Errorf("a limit the coverage cannot fit: %s %s, want ERROR INTERNAL", out.Status, out.ErrorCode)
	}
}

// Bad inputs are refused before any read, saying what to fix.
func TestToolRefusesBadInput(t *testing.T) {
	tool := incidentTool(t)
	for _, tc := range []struct{ in, want string }{
		{``, "empty input"},
		{`{"since": "1h", "limit": 3}`, "allowed members"},
		{`{}`, "a time window is required"},
		{`{"since": "1m"}`, "out of range"},
		{`{"since": "25h"}`, "out of range"},
		{`{"start": "2026-11-20T13:30:00Z"}`, "end"},
		{`{"start": "2026-11-20T13:30:00Z", "end": "2026-11-20T13:31:00Z"}`, "5m"},
		{`{"since": "1h", "service": "` + strings.Repeat("s", 129) + `"}`, "at most 128"},
	} {
		_, err := tool.Canonical(json.RawMessage(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.in, err, tc.want)
		}
	}
	c, err := tool.Canonical(json.RawMessage(`{"service": " order-service ", "start": "2026-11-20T15:30:00+01:00", "end": "2026-11-20T15:30:00+02:00"}`))
	if err == nil {
		t.Errorf("an end before the start was accepted: %s", c.Input)
	}
	c, err = tool.Canonical(json.RawMessage(`{"service": " order-service ", "end": "2026-11-20T16:30:00+02:00", "start": "2026-11-20T15:30:00+02:00"}`))
	if err != nil || string(c.Input) != `{"start":"2026-11-20T13:30:00Z","end":"2026-11-20T14:30:00Z","service":"order-service"}` || !strings.Contains(c.Summary, "service=order-service") {
		t.Errorf("canonical %s %q %v: want UTC times and the service trimmed", c.Input, c.Summary, err)
	}
}

// A timeline that could read none of its sources is UNAVAILABLE, never
// NO_EVIDENCE: nothing was seen, so nothing may be called absent.
func TestToolNothingReadIsUnavailable(t *testing.T) {
	mt, err := metrics.New([]metrics.Source{{Name: "prom", URL: testenv.ClosedURL(t), Timeout: time.Second, MaxSeries: 10, MaxPoints: 240, MaxWindow: 48 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := NewTool([]tools.Adapter{mt}, nil, []Metric{{Name: "p99", Query: "up"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runTool(t, tool, `{"since": "1h"}`, time.Now(), 8192)
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), "metric_shift p99") {
		t.Errorf("%s %s %v: want ERROR UNAVAILABLE naming the detector", out.Status, out.ErrorCode, out.Detail)
	}
	if _, err := NewTool(nil, []LogSource{{Name: "app"}}, nil, nil); err == nil {
		t.Error("a tool with no adapter to read was built")
	}
}
