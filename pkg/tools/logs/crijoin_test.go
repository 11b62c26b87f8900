package logs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
)

// criParted is a CRI log: INFO lines every second from 14:00:00, then at
// 14:01:40 one line of about size bytes, "ERROR upload failed <word> …
// <word> end", written by the runtime as 16 KiB parts (tag P, the last F),
// then an ERROR at 14:01:41 and more INFO lines.
func criParted(size int, word string) string {
	var b strings.Builder
	stamp := func(s, n int) string { return fmt.Sprintf("2026-11-20T14:%02d:%02d.%09dZ", s/60, s%60, n) }
	for i := range 100 {
		fmt.Fprintf(&b, "%s stdout F INFO request %d ok\n", stamp(i, 0), i)
	}
	body := "ERROR upload failed " + word + " " + strings.Repeat("z", size) + " " + word + " end"
	const part = 16 << 10
	for k := 0; k < len(body); k += part {
		tag := "P"
		if k+part >= len(body) {
			tag = "F"
		}
		fmt.Fprintf(&b, "%s stdout %s %s\n", stamp(100, k/part), tag, body[k:min(len(body), k+part)])
	}
	fmt.Fprintf(&b, "%s stdout F ERROR after the long line\n", stamp(101, 0))
	for i := 102; i < 200; i++ {
		fmt.Fprintf(&b, "%s stdout F INFO request %d ok\n", stamp(i, 0), i)
	}
	return b.String()
}

// TestCRIPartsAcrossChunks: a CRI line the runtime wrote as parts and
// longer than a read chunk is one entry in a gzip file as in a plain one
// (issue 36: split at the 4 MiB chunk's end, a word in both pieces counted
// twice and the second piece an entry of its own); one longer than
// logparse.MaxJoinedBytes is joined to that bound, its other parts skipped
// (not entries), and the entry says so (fields.entry_cut).
func TestCRIPartsAcrossChunks(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int
		cut  bool
	}{
		{"longer than a chunk", streamChunk + streamChunk/2, false},
		{"longer than the bound", logparse.MaxJoinedBytes + streamChunk, true},
	} {
		text := criParted(tc.size, "needle-7")
		for _, gz := range []bool{false, true} {
			name := fmt.Sprintf("%s gzip=%v", tc.name, gz)
			p := writeFile(t, dir, "app.log", text, gz)
			tool := newTool(t, Source{Name: "app", Paths: []string{p}})
			now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
			_, res := run(t, tool, `{"start":"2026-11-20T14:00:00Z","end":"2026-11-20T14:05:00Z","contains":"needle-7"}`, now, 0)
			if res.Matched != 1 || len(res.Entries) != 1 || !strings.HasPrefix(res.Entries[0].Message, "ERROR upload failed needle-7") {
				t.Errorf("%s: contains matched %d %+v; want the one entry", name, res.Matched, res.Entries)
				continue
			}
			if got := res.Entries[0].Fields[entryCutKey]; (got == entryCutText) != tc.cut {
				t.Errorf("%s: fields %v; want entry_cut %v", name, res.Entries[0].Fields, tc.cut)
			}
			_, res = run(t, tool, `{"start":"2026-11-20T14:00:00Z","end":"2026-11-20T14:05:00Z","level":"ERROR"}`, now, 0)
			if res.Matched != 2 || res.InWindow != 200 || res.LevelUnread != 0 {
				t.Errorf("%s: level ERROR matched %d in_window %d level_unread %d; want 2, 200, 0", name, res.Matched, res.InWindow, res.LevelUnread)
			}
		}
	}
}
