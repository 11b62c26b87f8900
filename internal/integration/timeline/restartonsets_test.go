package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/tools"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// loghubStarts are the process starts the Loghub 2k samples hold
// (testdata/logs/loghub, github.com/logpai/loghub; testdata/README.md), each
// an episode of start-up lines within a minute, named by the words of its
// first line (its time is where query_logs places that line). must: the
// line is a start-up by any reading (a daemon's own start message), so the
// restart detector has to place it; the others are starts written in words
// the detector does not read as one, measured only.
var loghubStarts = []struct {
	system, words string
	// nth is which of the entries holding words (0 the oldest)
	nth  int
	what string
	must bool
}{
	{"Linux", "cupsd startup succeeded", 0, "Jun 19 04:09, weekly rotation: cupsd, syslogd restart", true},
	{"Linux", "cupsd startup succeeded", 1, "Jun 26 04:04, weekly rotation", true},
	{"Linux", "cupsd startup succeeded", 2, "Jul 3 04:07, weekly rotation", true},
	{"Linux", "cupsd startup succeeded", 3, "Jul 10 04:04, weekly rotation", true},
	{"Linux", "cupsd startup succeeded", 4, "Jul 17 04:08, weekly rotation", true},
	{"Linux", "cupsd startup succeeded", 5, "Jul 24 04:20, weekly rotation", true},
	{"Linux", "klogd startup succeeded", 0, "Jul 27 14:41, boot: syslogd, klogd, portmap, rpc.statd, …", true},
	{"Thunderbird", "rpc.statd startup succeeded", 0, "Nov 9 12:10, boot of tbird-admin1: rpc.statd, syslog-ng, sshd, xinetd", true},
	{"Windows", "TrustedInstaller service starts successfully", 0, "2016-09-28 04:30, TrustedInstaller", true},
	{"Windows", "TrustedInstaller service starts successfully", 1, "2016-09-29 00:00, TrustedInstaller", true},
	{"Spark", "Starting executor ID", 0, "Spark executor", true},
	{"Zookeeper", "Starting quorum peer", 0, "ZooKeeper server (QuorumPeerMain)", false},
	{"Hadoop", "Created MRAppMaster for application", 0, "MapReduce application master", false},
}

// TestRestartOnsetsOnLoghub measures restart/deploy on start-ups that real
// systems logged: each episode of loghubStarts, a build_timeline through
// the real query_logs over its sample from 5 minutes before its first line
// to 5 minutes after. It logs the episodes placed by a restart within 1 and
// 5 minutes and the restarts more than 5 minutes from every episode
// (false), and fails when a must episode is not placed within a minute.
func TestRestartOnsetsOnLoghub(t *testing.T) {
	mtime := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	placed1, placed5, falses := 0, 0, 0
	for _, s := range loghubStarts {
		t.Run(fmt.Sprintf("%s/%s/%d", s.system, s.words, s.nth), func(t *testing.T) {
			p := loghubSample(t, s.system, mtime)
			src := logtool.Source{Name: s.system, Paths: []string{p}, MaxWindow: 400000 * time.Hour}
			lt, err := logtool.New([]logtool.Source{src})
			if err != nil {
				t.Fatal(err)
			}
			at := nthLine(t, lt, s.system, s.words, s.nth, mtime)
			tool, err := timeline.NewTool([]tools.Adapter{lt}, []timeline.LogSource{{Name: s.system, MaxWindow: src.MaxWindow}}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			tl := timelineOf(t, tool, timeline.Window{Start: at.Add(-5 * time.Minute), End: at.Add(5 * time.Minute)})
			var nearest time.Duration
			found := false
			for _, e := range tl.Events {
				if e.Kind != timeline.Restart && e.Kind != timeline.Deploy {
					continue
				}
				d := e.At.Sub(at)
				t.Logf("    %+5.0fs %s %s: %s", d.Seconds(), e.Kind, e.Service, e.Summary)
				if !found || d.Abs() < nearest.Abs() {
					nearest, found = d, true
				}
			}
			for _, c := range tl.Coverage {
				if c.Detector == timeline.DetectRestarts && c.Status == timeline.Failed {
					t.Fatalf("restart could not read %s: %s", s.system, c.Note)
				}
			}
			switch {
			case found && nearest.Abs() <= time.Minute:
				placed1++
				placed5++
			case found && nearest.Abs() <= 5*time.Minute:
				placed5++
			}
			for _, e := range tl.Events {
				if (e.Kind == timeline.Restart || e.Kind == timeline.Deploy) && e.At.Sub(at).Abs() > 5*time.Minute {
					falses++
				}
			}
			where := "not placed"
			if found {
				where = fmt.Sprintf("nearest restart %+.0fs", nearest.Seconds())
			}
			t.Logf("%s %s (%s): %s", s.system, at.Format(time.DateTime), s.what, where)
			if s.must && (!found || nearest.Abs() > time.Minute) {
				t.Errorf("%s's start-up at %s (%q) is not placed within a minute by a restart", s.system, at, s.words)
			}
		})
	}
	t.Logf("Loghub start-ups: %d/%d placed within 1 min, %d/%d within 5 min; %d restarts more than 5 min from every start-up", placed1, len(loghubStarts), placed5, len(loghubStarts), falses)
}

// loghubSample writes testdata's Loghub 2k sample of system, decompressed,
// with mtime (the year of its year-less stamps), and returns its path.
func loghubSample(t *testing.T, system string, mtime time.Time) string {
	t.Helper()
	return fixture.Gunzip(t, filepath.Join("..", "..", "..", "testdata", "logs", "loghub", system+"_2k.log.gz"), filepath.Join(t.TempDir(), system+".log"), mtime)
}

// nthLine is where query_logs places the nth oldest entry of source
// holding words.
func nthLine(t *testing.T, lt *logtool.Tool, source, words string, nth int, now time.Time) time.Time {
	t.Helper()
	in, err := json.Marshal(map[string]any{"source": source, "contains": words, "limit": 50,
		"start": "1990-01-01T00:00:00Z", "end": now.Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	cin, err := lt.Canonical(in)
	if err != nil {
		t.Fatal(err)
	}
	out := lt.Execute(context.Background(), tools.Call{ToolCallID: "find", Tool: logtool.ToolName, Input: cin.Input, Now: now, MaxBytes: 1 << 20})
	r, ok := out.Result.(logtool.Result)
	if !ok || nth >= len(r.Entries) || r.Matched > len(r.Entries) {
		t.Fatalf("%s: entry %d of those holding %q not listed: %s %v", source, nth, words, out.Status, out.Detail)
	}
	// entries come newest first
	e := r.Entries[len(r.Entries)-1-nth]
	at, err := time.Parse(time.RFC3339Nano, e.TS)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
