package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// genOrdered writes n text entries one second apart (with jitter below
// seekSlack and some stack traces) starting at base, and returns the content.
func genOrdered(n int, rng *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		ts := base.Add(time.Duration(i)*time.Second - time.Duration(rng.Intn(20))*time.Second)
		lvl := []string{"INFO", "WARN", "ERROR"}[rng.Intn(3)]
		fmt.Fprintf(&b, "%s %s [svc%d] event %d kind=%s\n", ts.Format("2006-01-02 15:04:05.000"), lvl, rng.Intn(3), i, []string{"alpha", "beta", "gamma"}[rng.Intn(3)])
		if rng.Intn(20) == 0 {
			b.WriteString("java.lang.IllegalStateException: gamma trace\n\tat a.b.C(C.java:1)\n")
		}
	}
	return b.String()
}

func TestSeekMatchesLinearScan(t *testing.T) {
	testenv.SkipShort(t, "generates and scans 7 MB of logs, plain and gzipped")
	rng := rand.New(rand.NewSource(7))
	dir := t.TempDir()
	content := genOrdered(80000, rng) // ~7 MB: several stream chunks
	writeFile(t, dir, "plain.log", content, false)
	writeFile(t, dir, "zipped.log", content, true)
	src := func(name string) Source {
		return Source{Name: "app", Paths: []string{filepath.Join(dir, name)}, MaxWindow: 48 * time.Hour}
	}
	seek := newTool(t, src("plain.log"))
	linear := newTool(t, src("plain.log"))
	linear.noSeek = true
	gz := newTool(t, src("zipped.log"))
	end := base.Add(80000 * time.Second)
	windows := [][2]time.Time{
		{base.Add(-time.Hour), base.Add(5 * time.Minute)},      // at start
		{base.Add(-2 * time.Hour), base.Add(-time.Hour)},       // before the file
		{end.Add(time.Hour), end.Add(2 * time.Hour)},           // after the file
		{end.Add(-10 * time.Minute), end.Add(time.Minute)},     // at the end
		{base.Add(10 * time.Hour), base.Add(10*time.Hour + 1)}, // empty
		{base.Add(-time.Hour), end.Add(time.Hour)},             // everything
	}
	for i := 0; i < 6; i++ {
		s := base.Add(time.Duration(rng.Int63n(int64(23 * time.Hour))))
		windows = append(windows, [2]time.Time{s, s.Add(time.Duration(1+rng.Intn(120)) * time.Minute)})
	}
	filters := []string{``, `,"contains":"gamma"`, `,"level":"error","contains":"Trace"`, `,"contains":"svc1"`}
	for _, w := range windows {
		for _, f := range filters {
			in := fmt.Sprintf(`{"start":%q,"end":%q,"limit":50%s}`, w[0].Format(time.RFC3339Nano), w[1].Format(time.RFC3339Nano), f)
			_, a := run(t, seek, in, base, 1<<20)
			_, b := run(t, linear, in, base, 1<<20)
			_, c := run(t, gz, in, base, 1<<20)
			// the source's range is sampled, from a compressed file's head
			// only, and so is the coverage judged on it: the seek is judged
			// by what the scans found (in_window included)
			for _, r := range []*Result{&a, &b, &c} {
				r.Coverage.Coverage, r.SourceFirst, r.SourceLast = "", "", ""
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			jc, _ := json.Marshal(c)
			if string(ja) != string(jb) || string(jb) != string(jc) {
				t.Fatalf("%s:\nseek   %.300s\nlinear %.300s\ngzip   %.300s", in, ja, jb, jc)
			}
		}
	}
}

func TestUnorderedFileIsScannedInFull(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	// two interleaved days: binary search would miss entries
	for i := 0; i < 2000; i++ {
		day := time.Duration(i%2) * 24 * time.Hour
		fmt.Fprintf(&b, "%s INFO line %d\n", base.Add(day+time.Duration(i)*time.Second).Format(time.RFC3339), i)
	}
	writeFile(t, dir, "a.log", b.String(), false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}})
	_, res := run(t, tool, `{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T16:00:00Z"}`, base, 1<<20)
	if res.Matched != 1000 {
		t.Fatalf("matched %d", res.Matched)
	}
}

// hpcLine is one line in the shape of Loghub's HPC sample: log id, node,
// component, state, Unix seconds, a flag, the message.
func hpcLine(id int, node, comp, state string, at time.Time, msg string) string {
	return fmt.Sprintf("%d node-%s %s %s %d 1 %s\n", id, node, comp, state, at.Unix(), msg)
}

// hpcMerged writes a log shaped like Loghub's HPC sample, which merges
// nodes' logs grouped by event kind: 2000 "action start" lines of many nodes
// in time order, five minutes apart from base, and after line at a second
// run of 12 "node psu" lines starting over from base, two of them within
// window. It returns the content.
func hpcMerged(at int) string {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		if i == at {
			for k := 0; k < 12; k++ {
				b.WriteString(hpcLine(51338+k, strconv.Itoa(3+k*17), "node", "psu", base.Add(time.Duration(k)*14*time.Hour+150*time.Minute), "psu failure\\ ambient=28"))
			}
		}
		b.WriteString(hpcLine(2568643+i, strconv.Itoa(i*37%256), "action", "start", base.Add(time.Duration(i)*5*time.Minute), "boot  (command 1902)"))
	}
	return b.String()
}

// sampledOrdered returns gen(at) for the first at from `from` whose out of
// order run the file's evenly spaced samples step over (so they call it
// ordered), with the scanner that judged it.
func sampledOrdered(t *testing.T, gen func(at int) string, from int) (string, *scanner) {
	t.Helper()
	for at := from; at < from+64; at++ {
		content := gen(at)
		s := &scanner{q: &query{}, tc: logparse.TimeCtx{Loc: time.UTC}, ctx: context.Background()}
		if err := s.setup(logparse.BuiltinLayouts(), []byte(content)); err != nil {
			t.Fatal(err)
		}
		if s.ordered([]byte(content)) {
			return content, s
		}
	}
	t.Fatal("no placement of the out of order run that the samples miss")
	return "", nil
}

// inWindow counts the timed entries of data[lo:hi] within [start, end].
func inWindow(s *scanner, data []byte, lo, hi int, start, end int64) int {
	n := 0
	for i := lo; i < hi; {
		line, next := lineAt(data, i, hi)
		if s.isTimed(line) && s.probe.TS >= start && s.probe.TS <= end {
			n++
		}
		i = next
	}
	return n
}

// An HPC-shaped file whose second run of entries starts over in time: its
// evenly spaced samples look ordered, and a binary search for a window
// provably misses the window's entries of the second run. The file is under
// defaultSeekMin, so query_logs reads it in full, finds them all and says
// ordered: false; logs inspect says so too.
func TestUnorderedHPCFile(t *testing.T) {
	start, end := base.Add(140*time.Minute), base.Add(17*time.Hour)
	content, s := sampledOrdered(t, hpcMerged, 1000)
	data := []byte(content)
	lo, _ := s.lowerBound(data, start.UnixNano()-int64(seekSlack))
	hi, _ := s.lowerBound(data, end.UnixNano()+int64(seekSlack)+1)
	sought := inWindow(s, data, lo, hi, start.UnixNano(), end.UnixNano())
	all := inWindow(s, data, 0, len(data), start.UnixNano(), end.UnixNano())
	if sought >= all || all != 177+2 {
		t.Fatalf("binary search finds %d of %d entries: the fixture does not show the miss", sought, all)
	}
	dir := t.TempDir()
	writeFile(t, dir, "hpc.log", content, false)
	src := Source{Name: "hpc", Paths: []string{filepath.Join(dir, "hpc.log")}, MaxWindow: 48 * time.Hour}
	tool := newTool(t, src)
	tool.limits.seekMin = defaultSeekMin
	in := fmt.Sprintf(`{"start":%q,"end":%q,"limit":5}`, start.Format(time.RFC3339), end.Format(time.RFC3339))
	_, res := run(t, tool, in, base, 1<<20)
	if res.Matched != all || res.Ordered == nil || *res.Ordered {
		t.Fatalf("matched %d (want %d), ordered %v", res.Matched, all, res.Ordered)
	}
	_, res = run(t, tool, strings.TrimSuffix(in, "}")+`,"contains":"psu"}`, base, 1<<20)
	if res.Matched != 2 {
		t.Errorf("psu: matched %d, want 2", res.Matched)
	}
	insp, err := Inspect(context.Background(), src, InspectOptions{Entries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(insp.Reports) != 1 || insp.Reports[0].Ordered {
		t.Errorf("inspect reports %+v, want the file not ordered", insp.Reports)
	}
	reliability.Record(t, reliability.SectionMutation, "out-of-order HPC-shaped file: a binary search finds "+strconv.Itoa(sought)+" of "+strconv.Itoa(all)+" window entries; query_logs finds all, ordered: false", map[string]any{"test": t.Name()})
}

// A file over the seek threshold whose samples look ordered but which holds,
// just after the window's range, a node's entries flushed two hours late:
// the check of the seek finds them, the rest of the file is read, and the
// answer is the linear scan's, with ordered: false.
func TestSeekCheckFindsLateEntries(t *testing.T) {
	late := func(at int) string {
		var b strings.Builder
		for i := 0; i < 3000; i++ {
			b.WriteString(hpcLine(1000+i, strconv.Itoa(i%200), "unix.hw", "state_change.unavailable", base.Add(time.Duration(i)*time.Minute), "Component State Change"))
			if i == at { // node-77's buffer, two hours late
				for k := 0; k < 5; k++ {
					b.WriteString(hpcLine(9000+k, "77", "unix.hw", "state_change.unavailable", base.Add(time.Duration(1380+k)*time.Minute), "ERROR late flush"))
				}
			}
		}
		return b.String()
	}
	content, _ := sampledOrdered(t, late, 1500)
	dir := t.TempDir()
	writeFile(t, dir, "a.log", content, false)
	src := Source{Name: "a", Paths: []string{filepath.Join(dir, "a.log")}, MaxWindow: 48 * time.Hour}
	seek, linear := newTool(t, src), newTool(t, src)
	linear.noSeek = true
	in := fmt.Sprintf(`{"start":%q,"end":%q,"limit":5}`, base.Add(1370*time.Minute).Format(time.RFC3339), base.Add(1400*time.Minute).Format(time.RFC3339))
	_, want := run(t, linear, in, base, 1<<20)
	_, got := run(t, seek, in, base, 1<<20)
	if want.Matched != 31+5 || got.Matched != want.Matched || got.Ordered == nil || *got.Ordered {
		t.Fatalf("seek matched %d ordered %v, linear %d (want 36)", got.Matched, got.Ordered, want.Matched)
	}
}
