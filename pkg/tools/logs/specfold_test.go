package logs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestSpecFoldMargin ties SPEC's daylight-saving paragraph to the reader:
// the distance from an offset change within which SPEC says every file is
// read in order from its start is foldMargin, and a window that near a
// fall-back is read that way while one farther is not.
func TestSpecFoldMargin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "SPEC.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`When the window comes within (\d+) hours of such a change, every file of the\s+source is read from its start in order`).FindSubmatch(b)
	if m == nil {
		t.Fatal("SPEC's daylight-saving paragraph no longer says within how many hours of a change the files are read in order")
	}
	h, _ := strconv.Atoi(string(m[1]))
	if time.Duration(h)*time.Hour != foldMargin {
		t.Fatalf("SPEC says %d hours; the reader uses %s", h, foldMargin)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	change := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC) // 02:00 EDT becomes 01:00 EST
	for _, c := range []struct {
		start time.Time
		near  bool
	}{
		{change.Add(foldMargin - time.Minute), true},
		{change.Add(-foldMargin - 9*time.Minute), true}, // the window ends a minute inside
		{change.Add(foldMargin + time.Minute), false},
		{change.Add(-foldMargin - 11*time.Minute), false},
	} {
		end := c.start.Add(10 * time.Minute)
		if got := foldNear(ny, c.start.UnixNano(), end.UnixNano()); got != c.near {
			t.Errorf("window %s–%s: read in order %v, want %v", c.start.Format(time.RFC3339), end.Format(time.RFC3339), got, c.near)
		}
	}
}
