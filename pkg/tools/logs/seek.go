package logs

import (
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
