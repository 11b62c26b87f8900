package logs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
)

// asciiLower lowers the ASCII letters of b only: the case folding the
// contains scan defines for a word whose non-ASCII runes have no case.
func asciiLower(b []byte) []byte {
	out := bytes.Clone(b)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + ('a' - 'A')
		}
	}
	return out
}

// testScanner is a linear scanner of q over UTC files of 2026, with the
// limits of a call.
func testScanner(q *query) *scanner {
	return &scanner{q: q, tc: logparse.TimeCtx{Loc: time.UTC, Year: 2026, EndNS: q.endNS}, acc: newAccumulator(5, time.UTC),
		noSeek: true, ctx: context.Background(), budget: 1 << 30}
}

// fuzzFile writes data to a file of its own and returns its path.
func fuzzFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.log")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// naiveStarts lists every start of w in the ASCII-lowered text.
func naiveStarts(text, w []byte) []int {
	low := asciiLower(text)
	var out []int
	for i := 0; i+len(w) <= len(low); i++ {
		if bytes.HasPrefix(low[i:], w) {
			out = append(out, i)
		}
	}
	return out
}

// fastStarts lists every start the prefilter finds, from 0 on.
func fastStarts(pf *prefilter, text []byte) []int {
	var out []int
	for p := pf.indexIn(text, 0, nil); p >= 0; p = pf.indexIn(text, p+1, nil) {
		out = append(out, p)
	}
	return out
}

// TestWordScan: the rarest-byte search finds exactly the starts a naive
// case-blind search finds, whether the rare byte is at the word's start,
// middle or end, for every case of the text, for non-ASCII words, and for
// words across the windows its searches work in (upWindow).
func TestWordScan(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("a", n) }
	at := func(n int, s string) string { return pad(n) + s + pad(40) }
	cases := []struct {
		name, word, sample, text string
		off                      int // the offset the prefilter must pick; -1: any
	}{
		{"rare byte first", "qaaaa", "aaaa", at(5, "QAAAA") + "qaaaa", 0},
		{"rare byte in the middle", "aaqaa", "aaaa", "xaaqaa" + at(3, "AAQAA"), 2},
		{"rare byte last", "aaaaq", "aaaa", at(7, "aAaAq") + "aaaaQ", 4},
		{"sample decides", "deadlock", strings.Repeat("dead lo c", 50), "DeadLock deadlock DEADLOCK deadlocK", 7},
		{"static order breaks a silent sample", "xe", "", "XE xe Xe", 0},
		{"digit, one case", "c-01", "ccc---", "C-01 c-01 c-02 c-0", 3},
		{"near misses of a common prefix", "redis-cluster-01", "", "redis-cluster-02 REDIS-CLUSTER-01 redis-cluster-0 Redis-Cluster-01", -1},
		{"every case", "redis", "", "redis REDIS Redis rEdIs reDIS", -1},
		{"non-ASCII without case", "→ok", "", "a→OK b→ok c→oK d->ok", -1},
		{"CJK", "超时", "", "请求超时 超 时 超时了", -1},
		{"one byte word", "k", "", "aKbkcK", 0},
		{"word at the text's end", "tail", "", at(10, "") + "TAIL", -1},
		{"word cut by the text's end", "tail", "", at(10, "") + "TAI", -1},
		{"on the upWindow boundary", "lq", "", at(upWindow-1, "LQ") + at(upWindow-1, "lq"), -1},
		{"upper case on the upWindow boundary", "qz", "zzzz", at(upWindow, "QZ") + at(upWindow-2, "Qz"), 0},
		{"across several windows", "qz", "zzzz", at(4*upWindow-1, "QZ") + at(2*upWindow-2, "qZ"), 0},
		{"upper case only, far apart", "mq", "mmmm", at(3*upWindow+5, "MQ") + at(upWindow, "MQ"), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := lowerWord(c.word)
			pf := choosePrefilter([][]byte{w}, []byte(c.sample))
			if pf == nil {
				t.Fatal("no prefilter for a case-safe word")
			}
			if c.off >= 0 && pf.off != c.off {
				t.Errorf("rare byte at %d (%q), want %d", pf.off, w[pf.off], c.off)
			}
			if len(w) > 1 && pf.off2 == pf.off {
				t.Errorf("second byte at the rare byte's offset %d", pf.off)
			}
			text := []byte(c.text)
			want, got := naiveStarts(text, w), fastStarts(pf, text)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("starts %v, want %v", got, want)
			}
			if cf := containsFold(text, w); cf != (len(want) > 0) {
				t.Errorf("containsFold %v, want %v", cf, len(want) > 0)
			}
		})
	}
	// a word whose letters change bytes under Unicode case folding is not
	// prefiltered: its entries are parsed and compared whole
	if pf := choosePrefilter([][]byte{lowerWord("Größe")}, nil); pf != nil {
		t.Errorf("prefilter %+v for a word with a cased non-ASCII letter", pf)
	}
}

// A stop that says the call has ended ends a long search, for a word
// whose rare byte has one case or two.
func TestWordScanStops(t *testing.T) {
	data := make([]byte, 2*skipChunk+10)
	copy(data[len(data)-2:], "kQ")
	for _, word := range []string{"kq", "k9"} { // rare bytes q (and Q), 9
		pf := choosePrefilter([][]byte{lowerWord(word)}, []byte("kkkk"))
		asked := 0
		stop := func() bool { asked++; return true }
		if got := pf.indexIn(data, 0, stop); got != -1 || asked != 1 {
			t.Errorf("%q: %d after %d stop checks, want -1 after 1", word, got, asked)
		}
	}
	pf := choosePrefilter([][]byte{lowerWord("kq")}, nil)
	if got := pf.indexIn(data, 0, func() bool { return false }); got != len(data)-2 {
		t.Errorf("without a stop: %d, want %d", got, len(data)-2)
	}
}

// TestContainsAcrossChunks: a mapped file's contains scan reads its range
// in chunks; every entry holding the word counts once, wherever it falls
// against a chunk's end, in every case, and the counts equal those of the
// scan of the mapping itself and of the stream.
func TestContainsAcrossChunks(t *testing.T) {
	var b strings.Builder
	hits := 0
	for i := 0; b.Len() < 2*streamChunk+4096; i++ {
		ts := base.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		msg := "request completed for customer " + strings.Repeat("r", i%97)
		// the word straddles each chunk's end in some line, and sits at
		// the start and end of others
		if d := b.Len() % streamChunk; d > streamChunk-600 || d < 600 || i%1013 == 0 {
			msg = []string{"Redis-Cluster-01 down", "lost redis-cluster-01", "REDIS-CLUSTER-01"}[i%3]
			hits++
		}
		fmt.Fprintf(&b, `{"ts":%q,"level":"error","msg":%q}`+"\n", ts, msg)
	}
	p := writeFile(t, t.TempDir(), "a.log", b.String(), false)
	q := &query{startNS: base.UnixNano(), endNS: base.Add(time.Hour).UnixNano(), limit: 5, words: [][]byte{lowerWord("redis-cluster-01")}}
	newScanner := func() *scanner {
		s := testScanner(q)
		s.noSeek, s.seekMin = false, 1 // the window found by binary search
		return s
	}
	read := newScanner()
	if _, err := read.scanFile(p, logparse.BuiltinLayouts()); err != nil {
		t.Fatal(err)
	}
	mapped := newScanner()
	if _, err := mapped.scanMapped([]byte(b.String()), logparse.BuiltinLayouts()); err != nil {
		t.Fatal(err)
	}
	stream := newScanner()
	if _, err := stream.scanStream(strings.NewReader(b.String()), logparse.BuiltinLayouts()); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*scanner{"read": read, "mapped": mapped, "stream": stream} {
		if n := s.acc.result("app", q.startNS, q.endNS).Matched; n != hits {
			t.Errorf("%s: matched %d, want %d", name, n, hits)
		}
	}
}

// TestContainsReadShort: a range of a mapped file that reads short (the
// file shrank after it was mapped) is a skip of the file, as the mapping's
// fault would be, never a silent partial count.
func TestContainsReadShort(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, `{"ts":%q,"level":"error","msg":"deadlock %d"}`+"\n", base.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano), i)
	}
	data := []byte(b.String())
	q := &query{startNS: base.UnixNano(), endNS: base.Add(time.Hour).UnixNano(), limit: 5, words: [][]byte{lowerWord("deadlock")}}
	s := testScanner(q)
	s.src = bytes.NewReader(data[:len(data)/2])
	_, err := s.scanMapped(data, logparse.BuiltinLayouts())
	var fe *fileError
	if !errors.As(err, &fe) || fe.reason != reasonShrank {
		t.Fatalf("err %v, want a skip with %q", err, reasonShrank)
	}
}

// FuzzWordScan: for any text, word and sample (which picks the rare
// bytes), the prefilter finds exactly the starts of the word in the text
// lowered ASCII-wise, from any point on, and containsFold agrees.
func FuzzWordScan(f *testing.F) {
	f.Add([]byte("redis-cluster-02 REDIS-CLUSTER-01"), []byte("redis-cluster-01"), []byte(`{"level":"info"}`), uint16(0))
	f.Add([]byte("DeadLock deadlock"), []byte("DEADLOCK"), []byte("k"), uint16(3))
	f.Add([]byte("a→OK b→ok"), []byte("→ok"), []byte(""), uint16(1))
	f.Add([]byte("aKbkcK"), []byte("k"), []byte("kkk"), uint16(2))
	f.Fuzz(func(t *testing.T, text, word, sample []byte, from uint16) {
		w := lowerWord(string(word))
		if len(w) == 0 || len(w) > maxContains || !foldSafe(w) {
			return
		}
		pf := choosePrefilter([][]byte{w}, sample)
		if pf == nil {
			t.Fatalf("no prefilter for %q", w)
		}
		want := naiveStarts(text, w)
		if got := fastStarts(pf, text); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("word %q (rare byte %d, second %d) in %q: starts %v, want %v", w, pf.off, pf.off2, text, got, want)
		}
		if cf := containsFold(text, w); cf != (len(want) > 0) {
			t.Fatalf("containsFold %q in %q: %v", w, text, cf)
		}
		fr := int(from) % (len(text) + 1)
		first := -1
		for _, p := range want {
			if p >= fr {
				first = p
				break
			}
		}
		if got := pf.indexIn(text, fr, nil); got != first {
			t.Fatalf("from %d: %d, want %d", fr, got, first)
		}
	})
}

// FuzzContainsFile: a contains query over any file counts the same read in
// chunks (a mapped file), searched in the mapping, and streamed. The chunk
// size is drawn small (above the longest line, so no line is cut as one
// filling a chunk), so entries span chunk ends and are carried.
func FuzzContainsFile(f *testing.F) {
	f.Add([]byte("{\"ts\":\"2026-03-14T14:01:00Z\",\"msg\":\"Deadlock found\"}\n{\"ts\":\"2026-03-14T14:02:00Z\",\"msg\":\"ok\"}\n"), []byte("deadlock"), uint16(0))
	f.Add([]byte("2026-03-14 14:01:00 ERROR [x] boom\n\tat redis-cluster-01\n2026-03-14 14:02:00 INFO [x] fine\n"), []byte("REDIS-cluster-01"), uint16(0))
	f.Add([]byte("banner\n127.0.0.1 - - [14/Mar/2026:14:01:00 +0000] \"GET /k HTTP/1.1\" 500 1\n"), []byte("get"), uint16(0))
	trace := "2026-03-14 14:01:00 ERROR [x] boom\n" + strings.Repeat("\tat a.b.C.d(C.java:1)\n", 40) + "Caused by: redis-cluster-01 down\n2026-03-14 14:02:00 INFO [x] fine\n"
	f.Add([]byte(trace), []byte("redis-cluster-01"), uint16(40))
	f.Add([]byte(trace), []byte("boom"), uint16(90))
	f.Fuzz(func(t *testing.T, data, word []byte, chunk uint16) {
		w := lowerWord(string(word))
		if len(w) == 0 || len(w) > maxContains || bytes.ContainsAny(w, " \t\r\n") || len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		q := &query{startNS: base.Add(-48 * time.Hour).UnixNano(), endNS: base.Add(48 * time.Hour).UnixNano(), limit: 5, words: [][]byte{w}}
		read := testScanner(q)
		longest := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			longest = max(longest, len(l))
		}
		if chunk > 0 {
			read.chunk = max(int(chunk), longest+2)
		}
		_, errR := read.scanFile(fuzzFile(t, data), logparse.BuiltinLayouts())
		if logparse.IsUTF16(data) {
			return // decoded while streamed: no mapping to compare with
		}
		mapped := testScanner(q)
		_, errM := mapped.scanMapped(bytes.Clone(data), logparse.BuiltinLayouts())
		if (errR == nil) != (errM == nil) {
			t.Fatalf("read err %v, mapped err %v", errR, errM)
		}
		rr, rm := read.acc.result("app", q.startNS, q.endNS), mapped.acc.result("app", q.startNS, q.endNS)
		if rr.Matched != rm.Matched || rr.Unparsed != rm.Unparsed || rr.Glued != rm.Glued {
			t.Fatalf("read %d/%d/%d, mapped %d/%d/%d (matched/unparsed/glued, chunk %d)", rr.Matched, rr.Unparsed, rr.Glued, rm.Matched, rm.Unparsed, rm.Glued, read.chunk)
		}
	})
}
