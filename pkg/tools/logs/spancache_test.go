package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpanCache: a file's coverage sample is taken once while the file is
// the same file with the same size and modification time, and again as
// soon as one of them changes (an appended line, a rotation to a new
// file), so the calls of a timeline do not sample every file at every call
// and never answer from a file that has changed.
func TestSpanCache(t *testing.T) {
	dir := t.TempDir()
	lines := func(from time.Time, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s INFO [checkout] request served\n", from.Add(time.Duration(i)*time.Minute).Format("2006-01-02 15:04:05.000"))
		}
		return b.String()
	}
	p := writeFile(t, dir, "app.log", lines(base, 10), false)
	tool := newTool(t, Source{Name: "app", Paths: []string{p}, MaxWindow: 48 * time.Hour, Location: time.UTC})
	src := tool.sources[0]
	ctx := context.Background()
	lastOf := func() string {
		t.Helper()
		r, err := src.span(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return r.LastTS
	}
	if got := lastOf(); got != "2026-03-14T14:09:00.000Z" {
		t.Fatalf("last %s, want the tenth minute", got)
	}
	// the same bytes count and modification time: not read again, so an
	// in-place rewrite that keeps both is not seen (what the cache trades)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(lines(base.Add(time.Hour), 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := lastOf(); got != "2026-03-14T14:09:00.000Z" {
		t.Errorf("an unchanged file was sampled again: last %s", got)
	}
	// an appended line changes the size: sampled again
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(lines(base.Add(2*time.Hour), 1)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := lastOf(); got != "2026-03-14T16:00:00.000Z" {
		t.Errorf("after an append: last %s, want 16:00", got)
	}
	// a new file of the same size and time at the path (rotation): sampled again
	st, err = os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	content, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rotated := strings.Replace(string(content), "2026-03-14 16:00", "2026-03-14 17:00", 1)
	tmp := filepath.Join(dir, "app.log.new")
	if err := os.WriteFile(tmp, []byte(rotated), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if got := lastOf(); got != "2026-03-14T17:00:00.000Z" {
		t.Errorf("after a rotation: last %s, want 17:00", got)
	}
}
