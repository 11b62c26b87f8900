package timeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// buildLogs runs the log detectors over one file of lines (already in time
// order) for the window w.
func buildLogs(t *testing.T, lines []string, w Window) Timeline {
	t.Helper()
	call, _ := adapterCaller(t, w.End.Add(time.Hour), appLogs(t, lines))
	tl, err := Build(context.Background(), Plan{Window: w, Logs: []LogSource{{Name: "app", MaxWindow: 24 * time.Hour}}}, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// appLogs is query_logs over the source "app": one file of lines.
func appLogs(t *testing.T, lines []string) tools.Adapter {
	t.Helper()
	p := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lt, err := logs.New([]logs.Source{{Name: "app", Paths: []string{p}, MaxWindow: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	return lt
}

// javaDay is an hour of a Spring service's text log, each line
// "HH:MM:SS.mmm LEVEL logger message" after an ISO date, as TrainTicket's
// services write through docker (Nezha's data), with a continuation line
// holding no level every minute (a wrapped message), then from 14:00:20 a
// new ERROR; known is an ERROR line the baseline already had.
func javaDay(newMsg string, baselineExtra string) []string {
	day := time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)
	var ls []string
	line := func(at time.Time, lvl, msg string) {
		ls = append(ls, fmt.Sprintf("%s %s  c.s.ContactsServiceImpl#37 %s", at.Format("2006-01-02T15:04:05.000Z"), lvl, msg))
	}
	for m := 0; m < 90; m++ {
		at := day.Add(time.Duration(m) * time.Minute)
		line(at.Add(2*time.Second), "INFO", "[findContactsById][Find contacts]")
		ls = append(ls, at.Add(3*time.Second).Format("2006-01-02T15:04:05.000Z")+" Get")
		if m%5 == 0 {
			line(at.Add(4*time.Second), "ERROR", "[getAllFood][Get the Get Food Request Failed!]")
		}
		if m == 20 && baselineExtra != "" {
			ls = append(ls, at.Add(5*time.Second).Format("2006-01-02T15:04:05.000Z")+" "+baselineExtra)
		}
		if m >= 60 && m < 70 {
			for s := 20; s < 60; s += 10 {
				line(at.Add(time.Duration(s)*time.Second), "ERROR", newMsg)
			}
		}
	}
	return ls
}

// TestNewErrorWithUnreadLevels: a baseline holding lines whose level the
// layout cannot read (continuation lines, banners: common in real logs;
// every Nezha TrainTicket hour has hundreds) still lets a pattern be called
// new when its words appear in no entry of the baseline at any level; a
// pattern whose words the baseline has, in a line of unread level, is not.
func TestNewErrorWithUnreadLevels(t *testing.T) {
	w := Window{Start: time.Date(2026, 11, 20, 13, 45, 0, 0, time.UTC), End: time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)}
	msg := "[findContactsById][contactsRepository.findById][No contacts according to contactsId]"
	tl := buildLogs(t, javaDay(msg, ""), w)
	var got []Event
	for _, e := range tl.Events {
		if e.Kind == NewError {
			got = append(got, e)
		}
	}
	want := time.Date(2026, 11, 20, 14, 0, 20, 0, time.UTC)
	if len(got) != 1 || !got[0].At.Equal(want) || !strings.Contains(got[0].Summary, "No contacts") {
		t.Fatalf("new errors %s\nwant one at %s; coverage %s", mustJSON(t, got), want, mustJSON(t, tl.Coverage))
	}
	for _, c := range tl.Coverage {
		if c.Detector == DetectNewError && (c.Status != Partial || !strings.Contains(c.Note, "level")) {
			t.Errorf("new_error coverage %+v: want partial, saying the baseline's levels were not all read", c)
		}
	}
	// the same words in a baseline line of unread level: not new
	tl = buildLogs(t, javaDay(msg, "No contacts according to contactsId in findContactsById of contactsRepository.findById, ContactsServiceImpl"), w)
	for _, e := range tl.Events {
		if e.Kind == NewError {
			t.Errorf("new error %s: its words are in the baseline, in a line whose level was not read", mustJSON(t, e))
		}
	}
}

// TestRestartOnRealStartLines: start-up lines as real systems write them
// (Loghub's Linux and Thunderbird syslogs, PostgreSQL, Redis, Spring Boot)
// are restarts, each placed at its line; lines that name a start without
// being one (Spark's "Started reading broadcast variable", Hadoop's
// ATTEMPT_START, Android's "restart: false") are not; and a start-up line
// is found behind more business lines holding "start" (TrainTicket's
// startStation) than one read lists, and behind none ("listening on",
// "ready to accept connections" hold no "start").
func TestRestartOnRealStartLines(t *testing.T) {
	day := time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)
	var ls []string
	line := func(at time.Time, svc, msg string) {
		ls = append(ls, fmt.Sprintf("ts=%s level=INFO service=%s msg=%q", at.Format(time.RFC3339Nano), svc, msg))
	}
	starts := []struct {
		min      int
		svc, msg string
	}{
		{50, "syslogd", "syslogd 1.4.1: restart."},
		{52, "cups", "cupsd startup succeeded"},
		{54, "syslog-ng", "syslog-ng version 1.6.0rc3 starting"},
		{56, "postgres", "database system is ready to accept connections"},
		{58, "redis", "Ready to accept connections tcp"},
		{60, "order-service", "Started OrderApplication in 4.1 seconds (JVM running for 5.2)"},
		{62, "gateway", "Listening on 0.0.0.0:8080"},
	}
	for m := 0; m < 90; m++ {
		at := day.Add(time.Duration(m) * time.Minute)
		if m%3 == 0 {
			line(at.Add(time.Second), "spark", "Started reading broadcast variable 12")
			line(at.Add(2*time.Second), "hadoop", "ATTEMPT_START task_1445144423722_0020_m_000004")
			line(at.Add(3*time.Second), "android", "cleanUpApplicationRecordLocked, pid: 1234, restart: false")
		}
		for _, s := range starts {
			if s.min == m {
				line(at.Add(30*time.Second), s.svc, s.msg)
			}
		}
		// after the start-up lines, more business lines naming a start
		// than one read lists
		if m > 62 {
			for i := 0; i < 3; i++ {
				line(at.Add(time.Duration(40+i)*time.Second), "travel-service", fmt.Sprintf("Route(startStation=shanghai, endStation=suzhou, id=%d)", m*10+i))
			}
		}
	}
	w := Window{Start: time.Date(2026, 11, 20, 13, 45, 0, 0, time.UTC), End: time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)}
	tl := buildLogs(t, ls, w)
	var got []Event
	for _, e := range tl.Events {
		if e.Kind == Restart || e.Kind == Deploy {
			got = append(got, e)
		}
	}
	if len(got) != len(starts) {
		t.Fatalf("restarts %s\nwant %d, one per start-up line; coverage %s", mustJSON(t, got), len(starts), mustJSON(t, tl.Coverage))
	}
	for i, s := range starts {
		want := day.Add(time.Duration(s.min)*time.Minute + 30*time.Second)
		if e := got[i]; !e.At.Equal(want) || e.Service != s.svc {
			t.Errorf("restart %d: %s at %s; want %s at %s", i, e.Service, e.At, s.svc, want)
		}
	}
	for _, c := range tl.Coverage {
		if c.Detector == DetectRestarts && c.Status != Read {
			t.Errorf("restart coverage %+v: want read (the narrower words each fit one read)", c)
		}
	}
}

// TestDeployOnVersionBanners: a start whose version differs from the one
// the service started with before is a deploy, from the start-up lines
// real programs write (Spring Boot 3 and 2, a service naming its version,
// Prometheus and Grafana with the version in a field, a Go service's slog
// line), placed at the start's first line, with the two versions as
// before and after; a start on the same version stays a restart; a
// business line that begins "Starting" and carries a version field is no
// start. nginx is not among them: it logs its version ("nginx/1.27.1") on
// a line of its own, which holds no start word and is not read.
func TestDeployOnVersionBanners(t *testing.T) {
	type line struct {
		after time.Duration
		text  string // {ts} is the time, {v} the version
	}
	springBoot3 := []line{
		{0, "{ts}  INFO 1 --- [           main] c.s.payment.PaymentApplication           : Starting PaymentApplication v{v} using Java 17.0.13 with PID 1 (/app/app.jar started by app in /app)"},
		{9100 * time.Millisecond, "{ts}  INFO 1 --- [           main] c.s.payment.PaymentApplication           : Started PaymentApplication in 9.1 seconds (process running for 9.8)"},
	}
	for _, c := range []struct {
		name     string
		lines    []line
		old, new string
		want     Kind // "" for no event
	}{
		{"Spring Boot 3", springBoot3, "2.13.4", "2.14.0", Deploy},
		{"Spring Boot 2", []line{
			{0, "{ts}  INFO 1 --- [           main] c.s.order.OrderApplication               : Starting OrderApplication v{v} on order-7d9f8 with PID 1 (/app.jar started by root in /)"},
			{6300 * time.Millisecond, "{ts}  INFO 1 --- [           main] c.s.order.OrderApplication               : Started OrderApplication in 6.3 seconds (JVM running for 7.0)"},
		}, "1.8.2", "1.9.0-SNAPSHOT", Deploy},
		{"Spring Boot on the same version", springBoot3, "2.14.0", "2.14.0", Restart},
		{"a service naming its version", []line{
			{0, `ts={ts} level=info service=payment-service msg="Starting payment-service v{v}"`},
		}, "2.13.4", "2.14.0", Deploy},
		{"Prometheus", []line{
			{0, `ts={ts} caller=main.go:583 level=info msg="Starting Prometheus Server" mode=server version="(version={v}, branch=HEAD, revision=63894216648f0d6be310c9d16fb48293c45c9310)"`},
			{110 * time.Millisecond, `ts={ts} caller=main.go:1009 level=info msg="Server is ready to receive web requests."`},
		}, "2.48.1", "2.52.0", Deploy},
		{"Grafana", []line{
			{0, `logger=settings t={ts} level=info msg="Starting Grafana" version={v} commit=d1729c53a7 branch=HEAD compiled={ts}`},
			{time.Second, `logger=http.server t={ts} level=info msg="HTTP Server Listen" address=[::]:3000 protocol=http`},
		}, "10.2.3", "11.0.0", Deploy},
		{"a Go service's slog line", []line{
			{0, `{"time":"{ts}","level":"INFO","msg":"starting server","service":"checkout","version":"v{v}","addr":":8080"}`},
		}, "1.4.2", "1.5.0", Deploy},
		{"a business line with a version field", []line{
			{0, `{"time":"{ts}","level":"INFO","msg":"Starting reconciliation of batch 42","service":"payment-service","version":"{v}"}`},
		}, "2.13.4", "2.14.0", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, at := time.Date(2026, 11, 20, 13, 20, 0, 0, time.UTC), time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)
			var ls []string
			for _, s := range []struct {
				at time.Time
				v  string
			}{{before, c.old}, {at, c.new}} {
				for _, l := range c.lines {
					ts := s.at.Add(l.after).Format("2006-01-02T15:04:05.000Z")
					ls = append(ls, strings.NewReplacer("{ts}", ts, "{v}", s.v).Replace(l.text))
				}
			}
			w := Window{Start: time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)}
			tl := buildLogs(t, ls, w)
			if c.want == "" {
				if len(tl.Events) != 0 {
					t.Fatalf("events %s: want none", mustJSON(t, tl.Events))
				}
				return
			}
			if len(tl.Events) != 1 {
				t.Fatalf("events %s: want one %s at %s; coverage %s", mustJSON(t, tl.Events), c.want, at, mustJSON(t, tl.Coverage))
			}
			e := tl.Events[0]
			if e.Kind != c.want || !e.At.Equal(at) {
				t.Errorf("event %s: want a %s at %s", mustJSON(t, e), c.want, at)
			}
			if c.want == Deploy && (e.Before == nil || e.After == nil || *e.Before != (Value{Version: c.old}) || *e.After != (Value{Version: c.new}) ||
				!strings.Contains(e.Summary, "started version "+c.new+" (was "+c.old+")")) {
				t.Errorf("deploy %s: want before %s and after %s", mustJSON(t, e), c.old, c.new)
			}
			if c.want == Restart && (e.Before != nil || e.After != nil) {
				t.Errorf("restart %s: want no before or after", mustJSON(t, e))
			}
		})
	}
}

// TestRestartOfAnOlderRecording: a restart detector's reads after the
// first that give no result (a run recorded when the detector read "start"
// alone, replayed: the reads of "listening" and "ready" have no recorded
// observation) leave the events those of the first read and one coverage
// line, partial, naming each word not read.
func TestRestartOfAnOlderRecording(t *testing.T) {
	day := time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)
	var ls []string
	for m := 0; m < 90; m++ {
		at := day.Add(time.Duration(m) * time.Minute)
		ls = append(ls, fmt.Sprintf("ts=%s level=INFO service=order-service msg=%q", at.Format(time.RFC3339Nano), "order accepted"))
		if m == 70 {
			ls = append(ls, fmt.Sprintf("ts=%s level=INFO service=order-service msg=%q", at.Add(30*time.Second).Format(time.RFC3339Nano), "Started OrderApplication in 4.1 seconds (JVM running for 5.2)"))
		}
	}
	lt := appLogs(t, ls)
	w := Window{Start: day.Add(45 * time.Minute), End: day.Add(90 * time.Minute)}
	plan := Plan{Window: w, Logs: []LogSource{{Name: "app", MaxWindow: 24 * time.Hour}}}
	every, _ := adapterCaller(t, w.End.Add(time.Hour), lt)
	full, err := Build(context.Background(), plan, every, nil)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := adapterCaller(t, w.End.Add(time.Hour), lt)
	unrecorded := func(ctx context.Context, tool string, input any) (Observed, error) {
		if in, ok := input.(map[string]any); ok && in["contains"] != nil && in["contains"] != "start" {
			return Observed{ToolCallID: "call_x", EvidenceStatus: tools.StatusError, ErrorCode: "UNRECORDED", Detail: fmt.Sprintf("no recorded observation for query_logs %v", in)}, nil
		}
		return live(ctx, tool, input)
	}
	old, err := Build(context.Background(), plan, unrecorded, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Events) != 1 || mustJSON(t, old.Events) != mustJSON(t, full.Events) {
		t.Errorf("events from the first read alone %s\nwant those of every read %s (one restart)", mustJSON(t, old.Events), mustJSON(t, full.Events))
	}
	var covs []Coverage
	for _, c := range old.Coverage {
		if c.Detector == DetectRestarts {
			covs = append(covs, c)
		}
	}
	if len(covs) != 1 || covs[0].Status != Partial || !strings.Contains(covs[0].Note, `the lines holding "listening" were not read: the call failed (UNRECORDED)`) ||
		!strings.Contains(covs[0].Note, `the lines holding "ready" were not read`) {
		t.Errorf("restart coverage %s: want one line, partial, naming the words not read", mustJSON(t, covs))
	}
	if len(old.Coverage) != plan.Lines() {
		t.Errorf("%d coverage lines, want the plan's %d", len(old.Coverage), plan.Lines())
	}
}
