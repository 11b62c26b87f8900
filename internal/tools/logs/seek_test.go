package logs

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
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
	src := func(name string) config.LogSource {
		return config.LogSource{Name: "app", Paths: []string{filepath.Join(dir, name)}, MaxWindow: 48 * time.Hour}
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
	filters := []string{``, `,"contains":"gamma"`, `,"level":"error","contains":"Trace"`, `,"service":"svc1"`}
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
	tool := newTool(t, config.LogSource{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}})
	_, res := run(t, tool, `{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T16:00:00Z"}`, base, 1<<20)
	if res.Matched != 1000 {
		t.Fatalf("matched %d", res.Matched)
	}
}
