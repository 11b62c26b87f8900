package logs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// dockerLine is one line of docker's json-file driver: the log member
// (with its newline, when the piece ends the line), stream and time, in
// that order, as docker's jsonlog writes them.
func dockerLine(b *strings.Builder, log, stamp string) {
	q, _ := json.Marshal(log)
	fmt.Fprintf(b, `{"log":%s,"stream":"stdout","time":"%s"}`+"\n", q, stamp)
}

// dockerPieced is a docker json-file log: a container writing JSON lines,
// INFO every second from 14:00:00, then at 14:01:40 one ERROR line of about
// size bytes whose request id lies at its end, which docker wrote as
// pieces of 16 KiB of text (without a newline, the last one with it, each
// with its own time), then an ERROR at 14:01:41 and more INFO lines.
func dockerPieced(size int) string {
	var b strings.Builder
	stamp := func(s, n int) string { return fmt.Sprintf("2026-11-20T14:%02d:%02d.%09dZ", s/60, s%60, n) }
	for i := range 100 {
		dockerLine(&b, fmt.Sprintf(`{"level":"info","msg":"request %d ok"}`+"\n", i), stamp(i, 0))
	}
	body := `{"level":"error","msg":"upload rejected","payload":"` + strings.Repeat(`z\"`, 1<<10) + strings.Repeat("<", 32<<10) + strings.Repeat("z", size) + `","request_id":"req-7f3a9"}` + "\n"
	const piece = 16 << 10
	for k := 0; k < len(body); k += piece {
		dockerLine(&b, body[k:min(len(body), k+piece)], stamp(100, 1000+k/piece))
	}
	dockerLine(&b, `{"level":"error","msg":"after the long line"}`+"\n", stamp(101, 0))
	for i := 102; i < 200; i++ {
		dockerLine(&b, fmt.Sprintf(`{"level":"info","msg":"request %d ok"}`+"\n", i), stamp(i, 0))
	}
	return b.String()
}

// TestDockerPiecesJoined: a line docker's json-file driver wrote as 16 KiB
// pieces (escaped: the first JSON lines are over 64 KiB each) is
// one entry, read from the joined text: its level, message and a word of
// its last piece, in a plain file and a gzip, and the entries around it
// stay apart (issue 36: the pieces were entries of their own and the
// request id's piece had no level).
func TestDockerPiecesJoined(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{100 << 10, streamChunk + streamChunk/2} {
		text := dockerPieced(size)
		for _, gz := range []bool{false, true} {
			name := fmt.Sprintf("%d bytes gzip=%v", size, gz)
			p := writeFile(t, dir, "app-json.log", text, gz)
			tool := newTool(t, Source{Name: "app", Paths: []string{p}})
			now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
			_, res := run(t, tool, `{"start":"2026-11-20T14:00:00Z","end":"2026-11-20T14:05:00Z","level":"ERROR"}`, now, 1<<20)
			if res.Matched != 2 || res.LevelUnread != 0 || res.Unplaced != 0 || len(res.Entries) != 2 || res.Entries[1].Message != "upload rejected" || res.Entries[1].TS != "2026-11-20T14:01:40.000Z" {
				t.Fatalf("%s: level ERROR: matched %d level_unread %d unplaced %d entries %v; want the long line and the one after it", name, res.Matched, res.LevelUnread, res.Unplaced, shortEntries(res.Entries))
			}
			if got := res.Entries[1].Fields["request_id"]; got != "req-7f3a9" {
				t.Fatalf("%s: the long line's last member request_id = %v", name, got)
			}
			_, res = run(t, tool, `{"start":"2026-11-20T14:00:00Z","end":"2026-11-20T14:05:00Z","contains":"req-7f3a9"}`, now, 1<<20)
			if res.Matched != 1 || res.Entries[0].Message != "upload rejected" {
				t.Fatalf("%s: contains req-7f3a9: matched %d entries %v; want the long line once", name, res.Matched, shortEntries(res.Entries))
			}
			_, res = run(t, tool, `{"start":"2026-11-20T14:00:00Z","end":"2026-11-20T14:05:00Z"}`, now, 1<<20)
			if res.Matched != 200 || res.InWindow != 200 {
				t.Fatalf("%s: every entry: matched %d in_window %d; want 200 (199 lines and the long one)", name, res.Matched, res.InWindow)
			}
		}
	}
}

// shortEntries is entries with their messages cut for a failure message.
func shortEntries(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.TS + " " + e.Level + " " + textclipShort(e.Message)
	}
	return out
}
