package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// adapterCaller calls adapters directly, as the harness would (canonical
// input, then execute, the observation's members), numbering the calls.
func adapterCaller(t *testing.T, now time.Time, adapters ...tools.Adapter) (Caller, *[]string) {
	byName := map[string]tools.Adapter{}
	for _, a := range adapters {
		byName[a.Definition().Name] = a
	}
	var made []string
	return func(ctx context.Context, tool string, input any) (Observed, error) {
		a, ok := byName[tool]
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		raw, err := json.Marshal(input)
		if err != nil {
			return Observed{}, err
		}
		id := fmt.Sprintf("call_%d", len(made)+1)
		made = append(made, tool+" "+string(raw))
		c, cerr := a.Canonical(raw)
		if cerr != nil { // a refused input is an observation, as the harness gives it
			return Observed{ToolCallID: id, EvidenceStatus: tools.StatusError, ErrorCode: tools.CodeInvalidInput, Detail: cerr.Error()}, nil //nolint:nilerr // the refusal is the answer
		}
		out := a.Execute(ctx, tools.Call{ToolCallID: id, Tool: tool, Input: c.Input, Now: now, MaxBytes: 1 << 20})
		o := Observed{ToolCallID: id, EvidenceStatus: out.Status, ErrorCode: out.ErrorCode}
		if out.Result != nil {
			if o.Result, err = json.Marshal(out.Result); err != nil {
				return Observed{}, err
			}
		}
		return o, nil
	}, &made
}

// incidentDay writes a logfmt day: a trickle of known errors, a restart of
// order-service with a new version at 13:58, then from 14:00:12 a burst of
// a new error on order-service.
func incidentDay(t *testing.T, dir string) string {
	var b strings.Builder
	day := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	line := func(at time.Time, lvl, svc, msg string) {
		fmt.Fprintf(&b, "ts=%s level=%s service=%s msg=%q\n", at.Format(time.RFC3339Nano), lvl, svc, msg)
	}
	line(day.Add(45*time.Minute), "INFO", "order-service", "Started OrderApplication in 4.1 seconds (version 2.3.0)")
	for m := 0; m < 180; m++ {
		at := day.Add(time.Duration(m) * time.Minute)
		line(at.Add(3*time.Second), "INFO", "order-service", "GET /api/orders 200")
		line(at.Add(9*time.Second), "INFO", "payment-service", "charge ok")
		if m%7 == 0 {
			line(at.Add(30*time.Second), "ERROR", "inventory", fmt.Sprintf("stock cache miss for sku %d", m))
		}
	}
	line(day.Add(118*time.Minute), "INFO", "order-service", "Started OrderApplication in 3.9 seconds (version 2.4.0)")
	burst := day.Add(120*time.Minute + 12*time.Second)
	for i := 0; i < 300; i++ {
		line(burst.Add(time.Duration(i)*2*time.Second), "ERROR", "order-service", fmt.Sprintf("payment call timed out after 5000ms (order %d)", 9000+i))
	}
	// the file must be time-ordered: sort the lines by their stamp
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	sortLines(lines)
	p := filepath.Join(dir, "app.log")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func sortLines(ls []string) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j] < ls[j-1]; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// TestBuildFromLogs places the restart, the deploy, the burst and the new
// error of an incident day within a minute of their true times, and says
// what each detector read.
func TestBuildFromLogs(t *testing.T) {
	dir := t.TempDir()
	p := incidentDay(t, dir)
	lt, err := logs.New([]logs.Source{{Name: "app", Paths: []string{p}, MaxWindow: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	call, made := adapterCaller(t, now, lt)
	w := Window{Start: time.Date(2026, 11, 20, 13, 30, 0, 0, time.UTC), End: time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)}
	tl, err := Build(context.Background(), Plan{Window: w, Logs: []LogSource{{Name: "app", MaxWindow: 24 * time.Hour}}}, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind    Kind
		at      time.Time
		service string
		words   string
	}{
		{Deploy, time.Date(2026, 11, 20, 13, 58, 0, 0, time.UTC), "order-service", "2.4.0 (was 2.3.0)"},
		{ErrorBurst, time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC), "order-service", "payment call timed out"},
		{NewError, time.Date(2026, 11, 20, 14, 0, 12, 0, time.UTC), "order-service", "payment call timed out"},
	}
	if len(tl.Events) != len(want) {
		t.Fatalf("events %s\nwant %d; calls:\n%s", mustJSON(t, tl.Events), len(want), strings.Join(*made, "\n"))
	}
	for i, w := range want {
		e := tl.Events[i]
		if e.Kind != w.kind || e.At.Sub(w.at).Abs() > time.Minute || e.Service != w.service || !strings.Contains(e.Summary, w.words) || e.ToolCallID == "" {
			t.Errorf("event %d: %s\nwant %s at %s (±1m) of %q saying %q", i, mustJSON(t, e), w.kind, w.at, w.service, w.words)
		}
	}
	burst := tl.Events[1]
	if burst.Before.Number != 0 || burst.After.Number < 20 {
		t.Errorf("burst before %v after %v: want 0 before and about 30 a minute after", burst.Before, burst.After)
	}
	if d := tl.Events[0]; d.Before == nil || d.After == nil || d.Before.Version != "2.3.0" || d.After.Version != "2.4.0" {
		t.Errorf("deploy before %v after %v: want the versions 2.3.0 and 2.4.0", d.Before, d.After)
	}
	for _, c := range tl.Coverage {
		if c.Status != Read || c.ToolCallID == "" {
			t.Errorf("coverage %+v: want read with its call", c)
		}
	}
	if len(tl.Coverage) != 3 {
		t.Errorf("coverage %s: want one line per detector", mustJSON(t, tl.Coverage))
	}
}

// TestBuildSaysWhatItCouldNotRead: a window the log source holds nothing
// of gives no event and says empty, never a quiet "nothing happened".
func TestBuildSaysWhatItCouldNotRead(t *testing.T) {
	dir := t.TempDir()
	p := incidentDay(t, dir)
	lt, err := logs.New([]logs.Source{{Name: "app", Paths: []string{p}, MaxWindow: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	call, _ := adapterCaller(t, time.Now(), lt)
	w := Window{Start: time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)}
	tl, err := Build(context.Background(), Plan{Window: w, Logs: []LogSource{{Name: "app", MaxWindow: 24 * time.Hour}}}, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Events) != 0 {
		t.Errorf("events in an empty window: %s", mustJSON(t, tl.Events))
	}
	for _, c := range tl.Coverage {
		if c.Status != Empty {
			t.Errorf("coverage %+v: want empty", c)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
