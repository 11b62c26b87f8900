package logs

import (
	"bytes"
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
// known is false when a line it meets runs past probeSpan without a newline
// (a huge line, a sparse file's hole): where the next header lies is then
// not known without reading the whole line, which a sample must not do.
func (s *scanner) headerAtOrAfter(data []byte, m int) (off int, ts int64, ok, known bool) {
	i := m
	if i > 0 && data[i-1] != '\n' {
		if i, known = s.probeLineStart(data, i, seekProbeSpan); !known {
			return len(data), 0, false, false
		}
	}
	for n := 0; i < len(data) && n < 4096 && !s.stopped(); n++ {
		line, _ := lineAt(data, i, min(len(data), i+logparse.MaxLineBytes))
		next, known := s.probeLineStart(data, i, seekProbeSpan)
		if !known {
			return len(data), 0, false, false
		}
		if s.isTimed(line) {
			return i, s.probe.TS, true, true
		}
		i = next
	}
	return len(data), 0, false, true
}

// probeSpan bounds how far a sample of a mapped file (layout detection's
// probes, the order samples, a binary search's probes) looks for the end of
// the line it lands in. A line longer than this (one of 60 GiB, a sparse
// file's hole without a newline) is not crossed by a sample: crossing it
// once spent the whole per-call time limit before the first entry was read.
const probeSpan = logparse.DetectScanBytes

// seekProbeSpan is probeSpan for the order samples and a binary search's
// probes, which may cross a longer line (once: nextLineStart remembers
// it) to keep the binary search over a file holding a few lines of tens of
// MiB.
const seekProbeSpan = 64 << 20

// probeLineStart is nextLineStart for a sample: known is false when no
// newline ends the line within span of m (and the line is not one already
// crossed).
func (s *scanner) probeLineStart(data []byte, m, span int) (next int, known bool) {
	if m >= len(data) {
		return len(data), true
	}
	g := &s.gap
	crossed := g.base == &data[0] && g.n == len(data) && m >= g.from && m < g.to
	if end := min(len(data), m+span); !crossed && end < len(data) && bytes.IndexByte(data[m:end], '\n') < 0 {
		return len(data), false
	}
	return s.nextLineStart(data, m), true
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
// time-ordered file (len(data) when none), found by binary search on offsets;
// known is false when a probe landed in a line too long to cross (the file
// is then read from start to end).
func (s *scanner) lowerBound(data []byte, target int64) (off int, known bool) {
	lo, hi := 0, len(data)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		_, ts, ok, known := s.headerAtOrAfter(data, m)
		if !known {
			return 0, false
		}
		if !ok || ts >= target {
			hi = m
		} else {
			lo = m + 1
		}
	}
	off, _, _, known = s.headerAtOrAfter(data, lo)
	return off, known
}

// ordered samples 65 evenly spaced headers and reports whether their times
// never go back by more than seekSlack; only then is binary search used. A
// sample landing in a line too long to cross (headerAtOrAfter) makes the
// file unsought: a binary search could not place the window around it.
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
		_, ts, ok, known := s.headerAtOrAfter(data, int(int64(len(data))*int64(k)/samples))
		if !known {
			return false
		}
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
	for i, n := hi, 0; i < len(data) && n < seekCheckLines && !s.stopped(); n++ {
		line, next, _ := cutLine(data, i, len(data), logparse.MaxLineBytes, s.stopped)
		if s.isTimed(line) && s.probe.TS <= s.q.endNS {
			s.disordered = true
			return
		}
		i = next
	}
}
