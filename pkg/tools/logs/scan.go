package logs

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
)

// seekSlack is how far out of time order a line may be and still be found
// when a window is located by binary search: the searched byte range is
// widened by this much on both sides. A file found further out of order
// (by the samples, the entries read or the check of the seek) is searched
// from start to end; every entry is still checked against the exact window.
const seekSlack = time.Minute

// seekCheckLines is how many lines on each side of a binary search's range
// are read to check that no entry of the window lies outside it.
const seekCheckLines = 256

// streamChunk is the read size for gzip files and platforms without mmap.
const streamChunk = 4 << 20

var (
	errNoMap        = errors.New("memory mapping unavailable")
	errUnrecognized = errors.New("no line could be placed in time")
	errBinary       = errors.New("NUL or control bytes in more than 1/16 of the first 8 KiB")
)

// query is a resolved business input: what Execute filters on.
type query struct {
	startNS, endNS int64
	service        string // lower case; "" means any
	level          string // canonical; "" means any
	words          [][]byte
	limit          int
}

// scanner runs one query over the files of one source into one accumulator.
type scanner struct {
	q *query
	// format is the source's configured format, named when a file is refused.
	format string
	tc     logparse.TimeCtx
	lay    *logparse.Layout
	acc    *accumulator
	rec    logparse.Record
	probe  logparse.Record
	pf     *prefilter
	// src is the mapped file being searched, which scanPart reads, and
	// srcAt the file offset of the data scanMapped searches.
	src    io.ReaderAt
	srcAt  int64
	noSeek bool // tests: force the linear path
	// chunk is the read size of the chunked scans (0: streamChunk); tests
	// shrink it so small inputs cross chunk ends.
	chunk int
	// seekMin is the size from which a time-ordered file is searched by
	// binary search; a smaller one is read in full (scanLimits.seekMin).
	seekMin int64
	// entered says the file's first entry header has been seen: lines
	// before it belong to no entry and are counted as unparsed.
	entered bool
	ticks   int
	// work is the line text parsed since the last context check.
	work int
	// gap is the last long newline-free run the binary search crossed.
	gap gap
	ctx context.Context
	// budget is what is left of the call's decompressed-byte limit.
	budget int64
	// latest is the latest entry time read so far in the file, and
	// disordered says an entry (or a sample) went back further than
	// seekSlack before it: the file is not in time order.
	latest     int64
	disordered bool
	// pathService is the container a Kubernetes node log's path names,
	// the service of a wrapped layout's entries ("" for other paths).
	pathService string
	// service is the source's configured service ([[logs]] service), the
	// service of every entry that names none.
	service []byte
	// lastIn says the file's last timed entry lay in the window; pending
	// counts the untimed entries read since it (see notePlace).
	lastIn  bool
	pending int
	// open is the entry a chunk of a chunked scan ended inside.
	open openEntry
}

// parse reads an entry's header line into r: the layout's parse, then for
// a container runtime's wrapper the service the file's path names (the
// service the line itself gives, if another, kept as the field component).
func (s *scanner) parse(line []byte, r *logparse.Record) logparse.LineKind {
	kind := s.lay.ParseLine(line, &s.tc, r)
	if s.lay.Wrapped && s.pathService != "" && kind != logparse.LineCont {
		if len(r.Service) > 0 && !bytes.EqualFold(r.Service, []byte(s.pathService)) {
			r.Fields = append(r.Fields, logparse.KV{Key: []byte("component"), Val: r.Service})
		}
		r.Service = []byte(s.pathService)
	}
	if len(r.Service) == 0 && kind != logparse.LineCont {
		r.Service = s.service
	}
	return kind
}

// joined is the one line an entry of partial lines makes (the layout's
// Join), or the entry's first line cut at lineCap (cut says so); next is
// where its continuation starts; hay, when not nil, is the joined text the
// contains words are matched against (nil: match the entry's line heads).
func (s *scanner) joined(data []byte, hs, end int) (line []byte, next int, hay []byte, cut bool) {
	line, next, cut = s.line(data, hs, end)
	if s.lay.Join != nil {
		if j := s.lay.Join(data[hs:end]); j != nil {
			return j, end, j, false
		}
	}
	return line, next, nil, cut
}

// noteTime records the time of an entry read in file order and marks the
// file disordered when it goes back more than seekSlack.
func (s *scanner) noteTime(ts int64) {
	if s.latest != 0 && ts < s.latest-int64(seekSlack) {
		s.disordered = true
	}
	s.latest = max(s.latest, ts)
}

// tick checks the call's context every 1024 lines and after every
// tickBytes of line text parsed, so neither many short lines nor a few long
// ones outlast the time cap, the run's deadline or a cancellation.
func (s *scanner) tick() error {
	s.ticks++
	if s.ticks&1023 == 0 || s.work >= tickBytes {
		s.work = 0
		return s.ctx.Err()
	}
	return nil
}

// stopped reports whether the call's context has ended (the skip of a long
// line's tail checks it between chunks).
func (s *scanner) stopped() bool { return s.ctx.Err() != nil }

// lineAt returns the line starting at i (without '\n' and a trailing '\r',
// at most logparse.MaxLineBytes of it) and the index after its newline.
func lineAt(data []byte, i, hi int) ([]byte, int) {
	line, next, _ := cutLine(data, i, hi, logparse.MaxLineBytes, nil)
	return line, next
}

// cutLine returns the line starting at i (without '\n' and a trailing
// '\r') and the index after its newline. A line longer than limit is cut:
// line is its head and cut is true, and the rest is skipped to the next
// newline by IndexByte, without copying, in skipChunk steps between which
// stop (when given) can end the skip at hi.
func cutLine(data []byte, i, hi, limit int, stop func() bool) (line []byte, next int, cut bool) {
	if k := bytes.IndexByte(data[i:min(hi, i+limit+1)], '\n'); k >= 0 {
		line, next = data[i:i+k], i+k+1
	} else if hi-i <= limit {
		line, next = data[i:hi], hi
	} else {
		return data[i : i+limit], skipLine(data, i+limit, hi, stop), true
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, next, false
}

// skipLine returns the index after the first newline at or after from (hi
// when none, or when stop says the call has ended).
func skipLine(data []byte, from, hi int, stop func() bool) int {
	if k := indexChunked(data, from, hi, '\n', stop); k < hi {
		return k + 1
	}
	return hi
}

// indexChunked is the index of the first c in data[from:hi] (hi when none,
// or when stop says the call has ended), searched in skipChunk steps between
// which stop (when given) is asked: a long stretch without c holds no call
// past its limits.
func indexChunked(data []byte, from, hi int, c byte, stop func() bool) int {
	for from < hi {
		end := min(hi, from+skipChunk)
		if k := bytes.IndexByte(data[from:end], c); k >= 0 {
			return from + k
		}
		from = end
		if stop != nil && stop() {
			return hi
		}
	}
	return hi
}

// lineCap is how much of a line the detected layout parses.
func (s *scanner) lineCap() int {
	if s.lay != nil {
		return s.lay.LineCap()
	}
	return logparse.MaxLineBytes
}

// line is lineAt for the scanner: the head the layout parses, cut at
// lineCap, with the tail skipped under the call's context; the head counts
// towards the bytes between context checks.
func (s *scanner) line(data []byte, i, hi int) (line []byte, next int, cut bool) {
	line, next, cut = cutLine(data, i, hi, s.lineCap(), s.stopped)
	s.work += len(line)
	return line, next, cut
}

// countCut counts a line the scan reached whose tail was skipped.
func (s *scanner) countCut(cut bool) {
	if cut {
		s.acc.longLines++
	}
}

// isHeader reports whether the line starts an entry (timed or not).
func (s *scanner) isHeader(line []byte) bool {
	return s.lay.ParseLine(line, &s.tc, &s.probe) != logparse.LineCont
}

// isTimed reports whether the line starts an entry with a readable time,
// which is all the binary search can place.
func (s *scanner) isTimed(line []byte) bool {
	return s.lay.ParseLine(line, &s.tc, &s.probe) == logparse.LineTimed
}

// entryEnd returns the end of the entry whose header line ends at next:
// the next header, unless the line before it is a part that it continues
// (Layout.Partial). Its continuation lines cut to their head are counted
// here, once.
func (s *scanner) entryEnd(data []byte, next, hi int) int {
	i := next
	partial := s.lay.Partial != nil && next > 0 && s.lay.Partial(lastLine(data, next))
	for i < hi {
		line, n, cut := s.line(data, i, hi)
		if !partial && s.isHeader(line) {
			return i
		}
		s.countCut(cut)
		if s.lay.Partial != nil {
			partial = s.lay.Partial(line)
		}
		i = n
	}
	return hi
}

// lastLine is the line that ends just before next (a line start > 0).
func lastLine(data []byte, next int) []byte {
	line, _ := lineAt(data, prevLineStart(data, next), next)
	return line
}

// entryContains reports whether the entry [hs,end) holds w; in an entry
// longer than a line's head, only the heads of its lines are searched.
func (s *scanner) entryContains(data []byte, hs, end int, w []byte) bool {
	if end-hs <= s.lineCap() {
		return containsFold(data[hs:end], w)
	}
	for i := hs; i < end; {
		line, next, _ := cutLine(data, i, end, s.lineCap(), s.stopped)
		if containsFold(line, w) {
			return true
		}
		i = next
	}
	return false
}

// evalEntry checks the entry [hs,end) against the query and records it.
func (s *scanner) evalEntry(data []byte, hs, end int) {
	line, next, hay, cut := s.joined(data, hs, end)
	s.countCut(cut)
	if s.lay.Each != nil {
		s.acc.cutRecords += s.lay.Each(line, &s.tc, &s.rec, s.evalRecord)
		return
	}
	var cont []byte
	if next < end {
		cont = data[next:end]
	}
	s.judge(line, cont, -1, func(_ int, w []byte) bool {
		if hay != nil {
			return containsFold(hay, w)
		}
		return s.entryContains(data, hs, end, w)
	})
}

// judge checks an entry, its header line and continuation cont, against
// the query and records it: has says whether the entry holds the i-th
// contains word; glued is the entry's count of continuation lines (-1:
// those of cont).
func (s *scanner) judge(line, cont []byte, glued int, has func(i int, w []byte) bool) {
	r := &s.rec
	kind := s.parse(line, r)
	if kind == logparse.LineTimed {
		s.noteTime(r.TS)
	}
	if s.pf == nil {
		s.notePlace(kind, r.TS)
	}
	v := s.passes(kind, r)
	if v == failed {
		return
	}
	for i, w := range s.q.words {
		if !has(i, w) {
			return
		}
	}
	if kind == logparse.LineUntimed {
		// matches the filters but cannot be placed in time: counted only
		if v == passed {
			s.acc.unparsed++
		}
		return
	}
	if s.unread(v) {
		return
	}
	if glued < 0 {
		glued = textLines(cont)
	}
	s.acc.glued += glued
	s.acc.add(r, cont)
}

// textLines counts the lines of b that hold more than white space.
func textLines(b []byte) int {
	n := 0
	for len(b) > 0 {
		line := b
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			line, b = b[:k], b[k+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// verdict is what the filters make of one parsed entry.
type verdict uint8

const (
	failed verdict = iota
	passed
	// levelUnread and serviceUnread: the entry passes every filter it can
	// be judged on, but the layout read no level (no service) for it, so
	// the level (service) filter can neither count it nor rule it out.
	levelUnread
	serviceUnread
)

// passes judges a parsed header of kind against the time window, level
// and service filters (an untimed one passes the window). A filter on a
// field the layout did not read for the entry never fails it: the entry is
// unread, counted apart, so a negative never rests on it unsaid.
func (s *scanner) passes(kind logparse.LineKind, r *logparse.Record) verdict {
	q := s.q
	switch {
	case kind == logparse.LineCont:
		return failed
	case kind == logparse.LineTimed && (r.TS < q.startNS || r.TS > q.endNS):
		return failed
	}
	if kind == logparse.LineTimed {
		s.acc.inWindow++
		if len(r.Service) > 0 {
			s.acc.services++
		}
	}
	v := passed
	switch {
	case q.level == "":
	case r.Level == "":
		v = levelUnread
	case r.Level != q.level:
		return failed
	}
	switch {
	case q.service == "":
	case len(r.Service) == 0:
		if v == passed {
			v = serviceUnread
		}
	case !bytes.EqualFold(r.Service, []byte(q.service)):
		return failed
	}
	return v
}

// unread counts an entry whose verdict rests on a field the layout did
// not read and reports whether it was one.
func (s *scanner) unread(v verdict) bool {
	switch v {
	case levelUnread:
		s.acc.levelUnread++
	case serviceUnread:
		s.acc.serviceUnread++
	default:
		return false
	}
	return true
}

// notePlace follows the entries of a file in order to count the unplaced
// ones (entries without a readable time: a line of the layout's shape it
// could not read, a JSON object without a time) that may lie in the window:
// those next to a timed entry inside it.
func (s *scanner) notePlace(kind logparse.LineKind, ts int64) {
	switch kind {
	case logparse.LineTimed:
		in := ts >= s.q.startNS && ts <= s.q.endNS
		if in || s.lastIn {
			s.acc.unplaced += s.pending
		}
		s.pending, s.lastIn = 0, in
	case logparse.LineUntimed:
		if s.lastIn {
			s.acc.unplaced++
		} else {
			s.pending++
		}
	}
}

// evalRecord checks one record of a batch line against the query and
// records it: the contains words are matched against the record's JSON and
// its resource's, as for a line of one record.
func (s *scanner) evalRecord(kind logparse.LineKind, r *logparse.Record, raw, res []byte) {
	v := s.passes(kind, r)
	if v == failed {
		return
	}
	for _, w := range s.q.words {
		if !containsFold(raw, w) && !containsFold(res, w) {
			return
		}
	}
	if kind == logparse.LineUntimed {
		if v == passed {
			s.acc.unparsed++
		}
		return
	}
	if s.unread(v) {
		return
	}
	s.acc.add(r, nil)
}

// orphan counts a line that belongs to no entry (text before a file's first
// entry) as unparsed when it passes the filters a bare line can be checked
// against: the words; a level or service filter cannot be judged on it.
func (s *scanner) orphan(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 || s.q.level != "" || s.q.service != "" {
		return
	}
	for _, w := range s.q.words {
		if !containsFold(line, w) {
			return
		}
	}
	s.acc.unparsed++
}

// skipLeading counts the lines before the file's first entry (a header of
// any length) as unparsed and returns the offset of that entry's first line
// (len(data) when no line starts one).
func (s *scanner) skipLeading(data []byte) (int, error) {
	for i := 0; i < len(data); {
		if err := s.tick(); err != nil {
			return i, err
		}
		line, next, cut := s.line(data, i, len(data))
		if s.isHeader(line) {
			s.entered = true
			return i, nil
		}
		s.countCut(cut)
		s.orphan(line)
		i = next
	}
	return len(data), nil
}

// scanRange runs the query over the complete entries in data[lo:hi]; lo must
// be a line start.
func (s *scanner) scanRange(data []byte, lo, hi int) error {
	if s.pf != nil {
		return s.scanFiltered(data, lo, hi)
	}
	i := lo
	// lines before the first header have no entry to join: at the start of
	// a file they are counted as unparsed, never given a neighbour's time
	for i < hi {
		line, next, cut := s.line(data, i, hi)
		if s.isHeader(line) {
			s.entered = true
			break
		}
		s.countCut(cut)
		if lo == 0 && !s.entered {
			s.orphan(line)
		}
		i = next
	}
	for i < hi {
		if err := s.tick(); err != nil {
			return err
		}
		_, next, _ := cutLine(data, i, hi, s.lineCap(), s.stopped)
		end := s.entryEnd(data, next, hi)
		s.evalEntry(data, i, end)
		i = end
	}
	return nil
}

// scanFiltered finds candidate lines with the prefilter and parses only the
// entries that contain the rarest word.
func (s *scanner) scanFiltered(data []byte, lo, hi int) error {
	done, pos := lo, lo
	for {
		if err := s.tick(); err != nil {
			return err
		}
		start := s.nextWord(data, pos, hi)
		if start >= hi {
			return nil
		}
		// the line holding the match, then back to its entry's header
		ls := done
		if k := bytes.LastIndexByte(data[done:start], '\n'); k >= 0 {
			ls = done + k + 1
		}
		// back to the header however many lines the entry has: each line
		// is walked back over once, the walks never passing done
		hs := -1
		for j := ls; ; {
			if err := s.tick(); err != nil {
				return err
			}
			line, _, _ := s.line(data, j, hi)
			if s.isHeader(line) && (s.lay.Partial == nil || j <= done || !s.lay.Partial(lastLine(data, j))) {
				hs = j
				break
			}
			if j <= done {
				break
			}
			k := bytes.LastIndexByte(data[done:j-1], '\n')
			if k < 0 {
				j = done
			} else {
				j = done + k + 1
			}
		}
		if hs < 0 { // text before the first entry: skip its line
			line, next, cut := s.line(data, ls, hi)
			s.countCut(cut)
			if lo == 0 && !s.entered {
				s.orphan(line)
			}
			done, pos = next, next
			continue
		}
		s.entered = true
		_, next, _ := cutLine(data, hs, hi, s.lineCap(), s.stopped)
		end := s.entryEnd(data, next, hi)
		s.evalEntry(data, hs, end)
		done, pos = end, end
	}
}

// headerAtOrAfter finds the first entry header starting at or after m.
func (s *scanner) headerAtOrAfter(data []byte, m int) (off int, ts int64, ok bool) {
	i := m
	if i > 0 && data[i-1] != '\n' {
		i = s.nextLineStart(data, i)
	}
	for n := 0; i < len(data) && n < 4096 && !s.stopped(); n++ {
		line, _ := lineAt(data, i, len(data))
		next := s.nextLineStart(data, i)
		if s.isTimed(line) {
			return i, s.probe.TS, true
		}
		i = next
	}
	return len(data), 0, false
}

// gap is a run of a mapped file without a newline longer than a line's
// head: the tail of a long line, which the probes of a binary search would
// otherwise scan again each time they land in it.
type gap struct {
	base     *byte // the data it belongs to: its first byte and length
	n        int
	from, to int // to is the index after the newline that ends the run
}

// nextLineStart returns the index after the first newline at or after m
// (len(data) when none): the start of the next line. A long newline-free
// run it crosses is remembered, so a long line is scanned once however many
// probes land in it.
func (s *scanner) nextLineStart(data []byte, m int) int {
	if m >= len(data) {
		return len(data)
	}
	g := &s.gap
	if g.base != &data[0] || g.n != len(data) {
		*g = gap{base: &data[0], n: len(data)}
	}
	if m >= g.from && m < g.to {
		return g.to
	}
	hi := len(data)
	if m < g.from {
		hi = g.from
	}
	next := skipLine(data, m, hi, s.stopped)
	if next == hi && hi == g.from && data[hi-1] != '\n' { // ran into the known run
		g.from = m
		return g.to
	}
	if next-m > logparse.MaxLineBytes {
		g.from, g.to = m, next
	}
	return next
}

// lowerBound is the offset of the first header with time ≥ target in a
// time-ordered file (len(data) when none), found by binary search on offsets.
func (s *scanner) lowerBound(data []byte, target int64) int {
	lo, hi := 0, len(data)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		_, ts, ok := s.headerAtOrAfter(data, m)
		if !ok || ts >= target {
			hi = m
		} else {
			lo = m + 1
		}
	}
	off, _, _ := s.headerAtOrAfter(data, lo)
	return off
}

// ordered samples 65 evenly spaced headers and reports whether their times
// never go back by more than seekSlack; only then is binary search used.
func (s *scanner) ordered(data []byte) bool {
	const samples = 64
	var prev int64
	seen := 0
	for k := 0; k <= samples; k++ {
		if s.stopped() {
			// the call's time cap or the run's end: what the scan reads next
			// stops at once too, and reports why
			return false
		}
		_, ts, ok := s.headerAtOrAfter(data, int(int64(len(data))*int64(k)/samples))
		if !ok {
			continue
		}
		if seen > 0 && ts < prev-int64(seekSlack) {
			s.disordered = true
			return false
		}
		if seen == 0 || ts > prev {
			prev = ts
		}
		seen++
	}
	return seen > 0
}

// sampleLines returns the lines detection judges a file by: the first
// detectHeadLines non-empty lines from from (within detectHeadBytes, each
// line whole), and detectProbeLines from each
// of detectProbes evenly spaced points after it.
func (s *scanner) sampleLines(data []byte, from int) [][]byte {
	var out [][]byte
	take := func(at, n int) {
		hi := min(len(data), at+logparse.DetectHeadBytes)
		for i, got := at, 0; i < hi && got < n; {
			// a line is sampled by its head, cut as the search cuts it
			// (it may run past the sample's byte bound)
			line, next := lineAt(data, i, min(len(data), i+logparse.DetectScanBytes))
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, line)
				got++
			}
			i = next
		}
	}
	take(from, logparse.DetectHeadLines)
	for k := 1; k <= logparse.DetectProbes; k++ {
		off := from + int(int64(len(data)-from)*int64(k)/(logparse.DetectProbes+1))
		// probes that land in one long line cross it once
		if next := s.nextLineStart(data, off); next < len(data) || data[len(data)-1] == '\n' {
			take(next, logparse.DetectProbeLines)
		}
	}
	return out
}

// firstTimed is the offset of the first line within detectScanBytes of
// data that one of cands places in time, or -1 (also once stop says the
// call has ended): where detection looks when a header longer than its
// samples hides the layout.
func firstTimed(data []byte, tc *logparse.TimeCtx, cands []*logparse.Layout, stop func() bool) int {
	var r logparse.Record
	hi := min(len(data), logparse.DetectScanBytes)
	for i := 0; i < hi && !stop(); {
		line, next := lineAt(data, i, hi)
		for _, l := range cands {
			if l.ParseLine(line, tc, &r) == logparse.LineTimed {
				return i
			}
		}
		i = next
	}
	return -1
}

// setup refuses binary data, detects the layout among cands from samples
// of the file and chooses the prefilter. A file in which no candidate
// places a sampled line in time is refused by name, whatever the format
// (one candidate too), instead of being searched to a silent "matched: 0".
func (s *scanner) setup(cands []*logparse.Layout, head []byte) error {
	head = head[leadingNULs(head):]
	if looksBinary(head) {
		return fileFault(reasonBinary, errBinary)
	}
	s.entered = false
	s.latest, s.disordered = 0, false
	s.lastIn, s.pending = false, 0
	l, ok := logparse.DetectLayout(s.sampleLines(head, 0), &s.tc, cands, s.stopped)
	if !ok && !s.stopped() {
		if off := firstTimed(head, &s.tc, cands, s.stopped); off >= 0 {
			l, ok = logparse.DetectLayout(s.sampleLines(head, off), &s.tc, cands, s.stopped)
		}
	}
	if err := s.ctx.Err(); err != nil {
		// the call ended while detecting: not a fault of the file
		return err
	}
	if !ok {
		return fileFault(reasonNoTime, fmt.Errorf("%w: %s", errUnrecognized, logparse.TriedLayouts(s.format, cands)))
	}
	s.lay = l
	s.pf = nil
	// a word may be split between the parts of a joined line, where no
	// byte search of the file finds it
	if len(s.q.words) > 0 && l.Join == nil {
		sample := head
		if len(sample) > 256<<10 {
			sample = sample[:256<<10]
		}
		s.pf = choosePrefilter(s.q.words, sample)
	}
	return nil
}

// blank reports whether data holds nothing but NULs and white space: an
// empty log, searched without complaint.
func blank(data []byte) bool {
	return len(bytes.TrimSpace(data[leadingNULs(data):])) == 0
}

// binarySample is how much of a file's start looksBinary judges.
const binarySample = 8 << 10

// leadingNULs is the length of the run of NUL bytes a file starts with: the
// hole a copytruncate rotation leaves before the writer's next line, which
// is skipped rather than taken for binary data.
func leadingNULs(b []byte) int {
	i := 0
	for i < len(b) && b[i] == 0 {
		i++
	}
	return i
}

// looksBinary reports whether more than one byte in 16 of the sample is NUL
// or a control character no text log holds (tab, newlines, form feed and
// ESC of coloured output are text).
func looksBinary(b []byte) bool {
	if len(b) > binarySample {
		b = b[:binarySample]
	}
	n := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			n++
		}
	}
	return n*16 > len(b)
}

// scanFile runs the query over one file: gzip (by magic bytes) and platforms
// without mmap stream; plain files are mapped and, when time-ordered,
// searched by binary search for the window. read says whether any of the
// file was searched; a fault of the file itself is a *fileError.
func (s *scanner) scanFile(path string, cands []*logparse.Layout) (read bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fileFault(reasonOpen, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fileFault(reasonOpen, err)
	}
	if st.Size() == 0 {
		return false, nil
	}
	// stamps without a year belong to the year of the file's last write
	s.tc.SetRef(max(st.ModTime().UnixNano(), 1))
	s.pathService = logparse.PathService(path)
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return false, fileFault(reasonGzipHeader, err)
		}
		defer zr.Close()
		read, err := s.scanStream(&cappedReader{r: zr, budget: &s.budget}, cands)
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && !errors.Is(err, errDecompressedCap) && s.ctx.Err() == nil {
			// the gzip stream itself failed part way
			reason := reasonGzipCorrupt
			if errors.Is(err, io.ErrUnexpectedEOF) {
				reason = reasonGzipEnds
			}
			err = fileFault(reason, err)
		}
		return read, err
	}
	if logparse.IsUTF16(magic[:]) { // decoded while it is streamed
		read, err := s.scanStream(f, cands)
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && s.ctx.Err() == nil {
			err = fileFault(reasonOpen, err)
		}
		return read, err
	}
	data, release, err := mapFile(f, st.Size())
	if errors.Is(err, errNoMap) {
		read, err := s.scanStream(f, cands)
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && s.ctx.Err() == nil {
			err = fileFault(reasonOpen, err)
		}
		return read, err
	}
	if err != nil {
		return false, fileFault(reasonOpen, err)
	}
	// munmap fails only for an address range that was never mapped, which
	// would be a bug here, not a condition of the file.
	defer func() { _ = release() }()
	s.src, s.srcAt = f, 0
	defer func() { s.src = nil }()
	return s.scanMapped(data, cands)
}

// scanMapped searches a mapped file. One smaller than seekMin is read in
// full; a larger one that its samples show in time order is searched by
// binary search for the window, the seek then checked against the lines
// around it and the entries it reads: when any of them is out of order, the
// rest of the file is read too. A file that shrinks while it is mapped
// (rotated by truncation, rewritten) faults on the pages past its new end:
// that fault becomes a skip of this file instead of a crash of the process.
func (s *scanner) scanMapped(data []byte, cands []*logparse.Layout) (read bool, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			fault, ok := r.(interface{ Addr() uintptr })
			if !ok {
				panic(r)
			}
			err = fileFault(reasonShrank, fmt.Errorf("memory fault at %#x reading the mapped file: %v", fault.Addr(), r))
		}
	}()
	full := len(data)
	data = bytes.TrimPrefix(data, logparse.UTF8BOM)
	if blank(data) {
		return false, nil
	}
	if err := s.setup(cands, data); err != nil {
		return false, err
	}
	read = true // from here a fault means part of the file was searched
	// the header before the first entry (of any length) is counted as
	// unparsed, not searched: seek or not, the search starts past it
	start, err := s.skipLeading(data)
	if err != nil {
		return true, err
	}
	data = data[start:]
	s.srcAt = int64(full - len(data))
	lo, hi := 0, len(data)
	// a batch line is placed by its first record, while its other records
	// may lie anywhere in time: such files are read linearly
	// the samples mark a file out of order whether or not it is sought
	ordered := s.lay.Each == nil && s.ordered(data)
	if ordered && !s.noSeek && int64(len(data)) >= s.seekMin {
		lo = s.lowerBound(data, s.q.startNS-int64(seekSlack))
		hi = s.lowerBound(data, s.q.endNS+int64(seekSlack)+1)
		if hi < lo {
			hi = lo
		}
		s.checkSeek(data, lo, hi)
	}
	if hi > lo && !s.reads() {
		adviseRead(data[lo:hi])
	}
	if err := s.scanPart(data, lo, hi); err != nil {
		return true, err
	}
	if s.disordered && (lo > 0 || hi < len(data)) {
		// the range the binary search chose cannot be trusted: the rest
		// of the file is searched too (still within the call's limits)
		if err := s.scanPart(data, 0, lo); err != nil {
			return true, err
		}
		return true, s.scanPart(data, hi, len(data))
	}
	return true, nil
}

// reads says whether scanPart reads the file instead of the mapping: for
// a contains scan, which parses only the entries around its matches. On a
// virtual machine a scan of mapped pages pays a page-table walk per 4 KiB
// and each first touch of a page a fault of microseconds; reading the
// range in chunks cut the time of BenchmarkContainsNeedles by over half, and
// the entries around a match are then parsed from the chunk, never
// faulted in one by one.
func (s *scanner) reads() bool {
	return s.pf != nil && s.src != nil
}

// scanPart runs the query over data[lo:hi] of a mapped file: scanRange on
// the mapping, or when s.reads, the chunked stream scan over that range
// of the file. A range that reads short (the file shrank) is a fault of
// the file, as a fault of its mapping would be.
func (s *scanner) scanPart(data []byte, lo, hi int) error {
	if !s.reads() || hi <= lo {
		return s.scanRange(data, lo, hi)
	}
	r := &countingReader{r: io.NewSectionReader(s.src, s.srcAt+int64(lo), int64(hi-lo))}
	// a small range gets a buffer of its size (and a byte to see its end)
	if _, err := s.scanChunks(r, nil, min(s.chunkSize(), hi-lo+1)); err != nil {
		return err
	}
	if r.n < int64(hi-lo) && s.ctx.Err() == nil {
		return fileFault(reasonShrank, fmt.Errorf("read %d of the %d bytes searched: the file shrank", r.n, hi-lo))
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// checkSeek reads up to seekCheckLines lines before lo and from hi on:
// an entry there whose time falls in the window, which the range [lo,hi)
// would miss, marks the file disordered.
func (s *scanner) checkSeek(data []byte, lo, hi int) {
	for i, n := lo, 0; i > 0 && n < seekCheckLines; n++ {
		i = prevLineStart(data, i)
		line, _ := lineAt(data, i, len(data))
		if s.isTimed(line) && s.probe.TS >= s.q.startNS {
			s.disordered = true
			return
		}
	}
	for i, n := hi, 0; i < len(data) && n < seekCheckLines; n++ {
		line, next := lineAt(data, i, len(data))
		if s.isTimed(line) && s.probe.TS <= s.q.endNS {
			s.disordered = true
			return
		}
		i = next
	}
}

// prevLineStart is the start of the line before the one starting at i (> 0).
func prevLineStart(data []byte, i int) int {
	return bytes.LastIndexByte(data[:i-1], '\n') + 1
}

// cappedReader counts what is read out of r against the call's remaining
// decompressed-byte budget and ends with errDecompressedCap once it is spent.
type cappedReader struct {
	r      io.Reader
	budget *int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if *c.budget <= 0 {
		return 0, errDecompressedCap
	}
	if int64(len(p)) > *c.budget {
		p = p[:*c.budget]
	}
	n, err := c.r.Read(p)
	*c.budget -= int64(n)
	return n, err
}

// scanStream reads r in chunks, each cut before its last entry header so an
// entry and its continuation lines are always scanned together. When r fails
// part way (a truncated gzip, the byte limit), the complete lines read so
// far are still searched before the error is returned; read says whether
// any of the stream was searched.
func (s *scanner) scanStream(r io.Reader, cands []*logparse.Layout) (read bool, err error) {
	r = logparse.DecodeBOM(r)
	s.lay = nil // detected again for this file
	return s.scanChunks(r, cands, s.chunkSize())
}

// chunkSize is the read size of the chunked scans.
func (s *scanner) chunkSize() int {
	if s.chunk > 0 {
		return s.chunk
	}
	return streamChunk
}

// scanChunks is scanStream's loop over chunks of at most size bytes: the
// layout is detected from the first chunk unless one is set already
// (scanPart reading a range of a file whose layout its head gave). Each
// chunk is cut before its last entry header; a chunk holding no header
// after its first line ends inside an entry, which is carried (s.open) to
// the chunks its continuation fills and judged once, where it ends.
func (s *scanner) scanChunks(r io.Reader, cands []*logparse.Layout, size int) (read bool, err error) {
	buf := make([]byte, 0, size)
	first := s.lay == nil
	read = !first
	eof := false
	s.open.on = false
	defer func() { s.open.on = false }()
	// inLong says the buffer starts inside a line longer than a chunk whose
	// head was scanned: its tail is dropped up to the next newline.
	inLong := false
	var readErr error
	for {
		if err := s.ctx.Err(); err != nil {
			return read, err
		}
		for !eof && readErr == nil && len(buf) < cap(buf) {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				readErr = err
			}
			if inLong {
				k := bytes.IndexByte(buf, '\n')
				if k < 0 {
					buf = buf[:0]
					continue
				}
				buf = buf[:copy(buf, buf[k+1:])]
				inLong = false
			}
		}
		last := eof || readErr != nil
		cut := len(buf)
		atHeader := false
		switch {
		case readErr != nil:
			// a line cut by the failure is dropped, not half-parsed
			cut = bytes.LastIndexByte(buf, '\n') + 1
		case !eof:
			cut, atHeader = s.lastHeaderStart(buf)
		}
		if first {
			first = false
			if last && blank(buf[:cut]) {
				return false, readErr
			}
			if err := s.setup(cands, buf[:cut]); err != nil {
				if readErr != nil {
					return false, readErr // the cause, not its symptom
				}
				return false, err
			}
			read = true
			if !last {
				// detection read whole lines: now cut before an entry
				cut, atHeader = s.lastHeaderStart(buf)
			}
		}
		if !last && s.lay != nil && cut == len(buf) && len(buf) <= s.lineCap() && bytes.IndexByte(buf, '\n') < 0 {
			// one line fills a chunk smaller than its layout's line cap (an
			// otlp_batch line): the chunk grows to hold the line's head whole
			buf = append(make([]byte, 0, min(2*cap(buf), s.lineCap()+1)), buf...)
			continue
		}
		if err := s.scanChunk(buf, cut, !last && !atHeader); err != nil {
			return read, err
		}
		if last {
			s.closeOpen()
			return read, readErr
		}
		if cut == len(buf) && bytes.IndexByte(buf, '\n') < 0 {
			// one line fills the chunk: its head was scanned, the tail is
			// skipped (counted here when the head was not already cut)
			inLong = true
			if len(buf) <= s.lineCap() {
				s.acc.longLines++
			}
		}
		rest := copy(buf, buf[cut:])
		buf = buf[:rest]
	}
}

// scanChunk runs the query over buf[:cut], a chunk of a chunked scan: the
// continuation of the open entry first, then the entries after it. goesOn
// says that the chunk's last entry may go on in the next chunk: when it
// is the only one (no header after the chunk's first line), it is opened
// instead of judged.
func (s *scanner) scanChunk(buf []byte, cut int, goesOn bool) error {
	from := 0
	if s.open.on {
		if from = s.continueOpen(buf, 0, cut); from < cut {
			s.closeOpen()
		} else if goesOn {
			return nil // the whole chunk continues the open entry
		}
	}
	if goesOn && from == 0 && s.carries() {
		if line, next, cut0 := s.line(buf, 0, cut); s.isHeader(line) {
			s.countCut(cut0)
			s.openAt(line)
			s.continueOpen(buf, next, cut)
			return nil
		}
	}
	return s.scanRange(buf, from, cut)
}

// openEntry is an entry a chunk ended inside: its header line and what
// its continuation held so far, judged (by closeOpen) once its end is read.
type openEntry struct {
	on bool
	// head is the header line (cut at its lineCap), cont the first
	// maxChainScan bytes of the continuation, both copied out of the chunk.
	head, cont []byte
	// glued counts the continuation's lines holding text.
	glued int
	// found has bit i set once the i-th contains word was found.
	found uint
}

// carries says whether an entry a chunk ends inside is carried to the next
// chunks: not for batch lines (one line each) nor for a layout whose
// entries are joined from parts (Layout.Join), whose search runs over the
// joined text.
func (s *scanner) carries() bool {
	return s.lay.Each == nil && s.lay.Join == nil && s.lay.Partial == nil
}

// openAt opens the entry whose header line is line.
func (s *scanner) openAt(line []byte) {
	o := &s.open
	*o = openEntry{on: true, head: append(o.head[:0], line...), cont: o.cont[:0]}
	s.entered = true
	o.search(s.q.words, line)
}

// search marks the words line holds.
func (o *openEntry) search(words [][]byte, line []byte) {
	for i, w := range words {
		if o.found&(1<<i) == 0 && containsFold(line, w) {
			o.found |= 1 << i
		}
	}
}

// continueOpen reads the lines of data[from:hi] up to the next header as
// the open entry's continuation (their heads searched for the words, as
// entryContains searches a long entry) and returns where they end.
func (s *scanner) continueOpen(data []byte, from, hi int) int {
	o := &s.open
	all := uint(1)<<len(s.q.words) - 1
	i := from
	for i < hi {
		line, next, cut := s.line(data, i, hi)
		if s.isHeader(line) {
			break
		}
		s.countCut(cut)
		if o.found != all {
			o.search(s.q.words, line)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			o.glued++
		}
		i = next
	}
	if room := maxChainScan - len(o.cont); room > 0 {
		o.cont = append(o.cont, data[from:from+min(room, i-from)]...)
	}
	return i
}

// closeOpen judges the open entry, now read to its end. With a prefilter,
// an entry that never held its word is not read, as in a scan of the
// whole range.
func (s *scanner) closeOpen() {
	o := &s.open
	if !o.on {
		return
	}
	o.on = false
	if s.pf != nil {
		for i, w := range s.q.words {
			if bytes.Equal(w, s.pf.word) && o.found&(1<<i) == 0 {
				return
			}
		}
	}
	s.judge(o.head, o.cont, o.glued, func(i int, _ []byte) bool { return o.found&(1<<i) != 0 })
}

// lastHeaderStart is where the next chunk must begin: the last header line of
// a full buffer (atHeader), or (if none but the first) the end of its last
// whole line.
func (s *scanner) lastHeaderStart(buf []byte) (cut int, atHeader bool) {
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return len(buf), false // one huge line: scan it alone
	}
	if s.lay == nil { // the first chunk, before detection: whole lines
		return end + 1, false
	}
	j := end + 1 // start of the incomplete last line
	for j > 0 {
		k := bytes.LastIndexByte(buf[:j-1], '\n')
		ls := k + 1
		line, _ := lineAt(buf, ls, len(buf))
		if ls > 0 && s.isHeader(line) && (s.lay.Partial == nil || !s.lay.Partial(lastLine(buf, ls))) {
			return ls, true
		}
		if ls == 0 {
			break
		}
		j = ls
	}
	return end + 1, false
}
