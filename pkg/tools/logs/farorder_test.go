package logs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// farLate writes 3000 entries one minute apart from base and, after the
// 2000th, a node's buffer of 400 entries flushed late: their times lie in
// [base+100m, base+130m), about 1900 lines after the window's place in the
// ordered run, so the 256 lines the check of a binary search reads on each
// side of its range never meet them.
func farLate() string {
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "%s INFO [api] tick %d\n", base.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), i)
		if i == 2000 {
			for k := 0; k < 400; k++ {
				at := base.Add(100*time.Minute + time.Duration(k%30)*time.Minute + time.Duration(k/30)*time.Second)
				fmt.Fprintf(&b, "%s ERROR [node-7] late flush %d\n", at.Format(time.RFC3339), k)
			}
		}
	}
	return b.String()
}

// A file out of time order where the disorder lies far more than
// seekCheckLines lines from the window's range: the evenly spaced samples
// meet the late run, so the file is read from start to end (a binary search
// and its check would find the 31 ordered entries only). Every in-window
// entry is found, as a linear read finds them, and the observation says
// ordered: false.
func TestFarDisorderFoundByTheSamples(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "far.log", farLate(), false)
	src := Source{Name: "app", Paths: []string{filepath.Join(dir, "far.log")}, MaxWindow: 48 * time.Hour}
	seek, linear := newTool(t, src), newTool(t, src) // seekMin 0: the binary search is open to it
	linear.noSeek = true
	in := fmt.Sprintf(`{"start":%q,"end":%q,"limit":5}`, base.Add(100*time.Minute).Format(time.RFC3339), base.Add(130*time.Minute).Format(time.RFC3339))
	_, want := run(t, linear, in, base, 1<<20)
	_, got := run(t, seek, in, base, 1<<20)
	if want.Matched != 31+400 {
		t.Fatalf("a linear read matched %d, want 431: the fixture is off", want.Matched)
	}
	if got.Matched != want.Matched || got.Ordered == nil || *got.Ordered {
		t.Errorf("matched %d of %d, ordered %v: want every in-window entry and ordered: false", got.Matched, want.Matched, got.Ordered)
	}
	_, got = run(t, seek, strings.TrimSuffix(in, "}")+`,"level":"error"}`, base, 1<<20)
	if got.Matched != 400 || got.Ordered == nil || *got.Ordered {
		t.Errorf("level error: matched %d, ordered %v; want the 400 late entries, ordered: false", got.Matched, got.Ordered)
	}
}
