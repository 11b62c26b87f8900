package logs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/pkg/tools"
)

// traceEntry is an ERROR entry at 14:0m:00 whose Java stack trace of
// continuation lines (each far shorter than logparse.MaxLineBytes) runs to
// about size bytes, ended by a cause line naming tail; frames is how many
// continuation lines it has.
func traceEntry(m, size int, tail string) (text string, frames int) {
	var b strings.Builder
	fmt.Fprintf(&b, "2026-03-14 14:%02d:00 ERROR [api] checkout failed: request aborted\n", m)
	for b.Len() < size {
		fmt.Fprintf(&b, "\tat com.example.checkout.Stage%d.run(Stage.java:%d)\n", frames, frames%977)
		frames++
	}
	fmt.Fprintf(&b, "Caused by: java.io.IOException: %s unreachable\n", tail)
	return b.String(), frames + 1
}

// TestContainsEntryLongerThanChunk: a contains word in an entry longer
// than a read chunk (streamChunk) is found wherever it lies in the entry,
// attributed to the entry that started in an earlier chunk and counted
// once; so is a word in an entry of more lines than a walk back from it
// once searched. A file streamed (gzip) and one read in chunks (plain,
// mapped) count alike, and the entry's continuation is glued whole.
func TestContainsEntryLongerThanChunk(t *testing.T) {
	head := "2026-03-14 14:01:00 INFO [api] started\n"
	after := "2026-03-14 14:09:00 INFO [api] still up\n"
	big, bigFrames := traceEntry(2, streamChunk+streamChunk/4, "redis-cluster-01")
	huge, hugeFrames := traceEntry(2, 2*streamChunk+streamChunk/2, "redis-cluster-01")
	// 30,000 frames: more lines than a walk back from the word searched,
	// within one chunk
	deep, deepFrames := traceEntry(2, streamChunk/2, "redis-cluster-01")
	// short entries up to just before streamChunk, then a short trace that
	// straddles the first chunk's end (the chunk detection reads)
	var pad strings.Builder
	pad.WriteString(head)
	for i := 0; pad.Len() < streamChunk-300; i++ {
		fmt.Fprintf(&pad, "2026-03-14 14:01:%02d INFO [api] heartbeat %d\n", i%60, i)
	}
	straddle, straddleFrames := traceEntry(2, 2000, "redis-cluster-01")
	for _, tc := range []struct {
		name, text, contains string
		matched, glued       int
	}{
		{"word past the first chunk", head + big + after, "redis-cluster-01", 1, bigFrames},
		{"word two chunks on", head + huge + after, "redis-cluster-01", 1, hugeFrames},
		{"words in the head and past the chunk", head + big + after, "checkout redis-cluster-01", 1, bigFrames},
		{"word in the head and again past the chunk, counted once", head + strings.Replace(big, "checkout failed", "redis-cluster-01 failed", 1) + after, "redis-cluster-01", 1, bigFrames},
		{"word near the start only", head + big + after, "Stage3.run", 1, bigFrames},
		{"entry of many lines within a chunk", head + deep + after, "redis-cluster-01", 1, deepFrames},
		{"short entry across the first chunk's end", pad.String() + straddle + after, "redis-cluster-01", 1, straddleFrames},
		{"entry last in the file", head + big, "redis-cluster-01", 1, bigFrames},
		{"word absent", head + big + after, "redis-cluster-02", 0, 0},
	} {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s gzip=%v", tc.name, gz), func(t *testing.T) {
				name := "app.log"
				if gz {
					name += ".gz"
				}
				p := writeFile(t, t.TempDir(), name, tc.text, gz)
				tool := newTool(t, Source{Name: "app", Paths: []string{p}})
				in := fmt.Sprintf(`{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","contains":%q}`, tc.contains)
				out, res := run(t, tool, in, base.Add(time.Hour), 1<<20)
				if res.Matched != tc.matched || res.Glued != tc.glued || res.LongLines != 0 {
					t.Fatalf("matched %d glued %d long_lines %d, want %d, %d, 0 (%s, coverage %q)", res.Matched, res.Glued, res.LongLines, tc.matched, tc.glued, out.Status, res.Coverage.Coverage)
				}
				if tc.matched > 0 && (out.Status != tools.EvidenceFound || res.Entries[0].TS != "2026-03-14T14:02:00.000Z") {
					t.Fatalf("status %s, entries %+v", out.Status, res.Entries)
				}
			})
		}
	}
}

// TestContainsOpenEntryOnce: the scanner's read in small chunks counts an
// entry spanning many of them once, with every continuation line glued,
// as the scan of the whole mapping does.
func TestContainsOpenEntryOnce(t *testing.T) {
	text, frames := traceEntry(2, 20<<10, "redis-cluster-01")
	text = "2026-03-14 14:01:00 INFO [api] started\n" + text + "2026-03-14 14:09:00 INFO [api] still up\n"
	q := &query{startNS: base.UnixNano(), endNS: base.Add(time.Hour).UnixNano(), limit: 5, words: [][]byte{lowerWord("redis-cluster-01"), lowerWord("stage7.run")}}
	for _, chunk := range []int{128, 1000, 4096, 1 << 20} {
		s := testScanner(q)
		s.chunk = chunk
		if _, err := s.scanStream(strings.NewReader(text), logparse.BuiltinLayouts()); err != nil {
			t.Fatal(err)
		}
		if r := s.acc.result("app", q.startNS, q.endNS); r.Matched != 1 || r.Glued != frames {
			t.Errorf("chunk %d: matched %d glued %d, want 1, %d", chunk, r.Matched, r.Glued, frames)
		}
	}
}

// TestContainsBatchLineLongerThanChunk: an otlp_batch line longer than a
// read chunk but within its layout's cap (logparse.MaxBatchLineBytes) is
// read whole, in a plain file read in chunks and in a gzip file, as the
// scan of the mapping reads it: a record near its end is found, and the
// line is no long line.
func TestContainsBatchLineLongerThanChunk(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bulk"}}]},"scopeLogs":[{"scope":{},"logRecords":[`)
	const records = 5000
	pad := strings.Repeat("padding ", 160)
	for i := range records {
		if i > 0 {
			b.WriteByte(',')
		}
		word := "fine"
		if i == records-3 {
			word = "redis-cluster-01"
		}
		fmt.Fprintf(&b, `{"timeUnixNano":"%d","severityNumber":17,"body":{"stringValue":"r%d %s %s"}}`, base.Add(10*time.Minute).UnixNano()+int64(i), i, word, pad)
	}
	b.WriteString("]}]}]}\n")
	if b.Len() <= streamChunk || b.Len() > logparse.MaxBatchLineBytes {
		t.Fatalf("line of %d bytes", b.Len())
	}
	for _, gz := range []bool{false, true} {
		name := "bulk.json"
		if gz {
			name += ".gz"
		}
		p := writeFile(t, t.TempDir(), name, b.String(), gz)
		tool := newTool(t, Source{Name: "app", Paths: []string{p}})
		_, res := run(t, tool, `{"start":"2026-03-14T13:00:00Z","end":"2026-03-14T16:00:00Z","contains":"redis-cluster-01"}`, base.Add(3*time.Hour), 1<<20)
		if res.Matched != 1 || res.LongLines != 0 || res.CutRecords != 0 {
			t.Errorf("gzip=%v: matched %d long_lines %d cut_records %d, want 1, 0, 0", gz, res.Matched, res.LongLines, res.CutRecords)
		}
	}
}
