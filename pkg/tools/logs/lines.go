package logs

import (
	"bytes"

	"github.com/superbiz/superbiz/internal/logparse"
)

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
	if i < hi && data[i] == 0 {
		// a run of NULs (the hole a copytruncate rotation leaves) is no part
		// of the line after it
		i = skipNULs(data, i, hi, stop)
	}
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
	partial := s.lay.Partial != nil && next > 0 && s.lay.Partial(s.lastLine(data, next))
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

// lastLine is the line that ends just before next (a line start > 0), cut
// at the layout's lineCap as the line's parse sees it.
func (s *scanner) lastLine(data []byte, next int) []byte {
	line, _, _ := cutLine(data, prevLineStart(data, next), next, s.lineCap(), nil)
	return line
}

// maxSearchLine is how much of one line the contains words are matched
// against: a line is searched whole up to it (a long line's tail too, not
// only the head its layout parses); past it, a word not found is no
// negative: the entry counts in contains_cut.
const maxSearchLine = logparse.MaxJoinedBytes

// entryContains reports whether the entry [hs,end) holds w: each of its
// lines is searched whole, up to maxSearchLine of it. A line searched
// short of its end (longer than maxSearchLine, or going on past data when
// end is s.goesOnAt) sets s.searchCut, so a word not found is not taken
// for a negative.
func (s *scanner) entryContains(data []byte, hs, end int, w []byte) bool {
	if end-hs <= s.lineCap() && end != s.goesOnAt {
		return containsFold(data[hs:end], w)
	}
	for i := hs; i < end; {
		lim := min(end, i+maxSearchLine+1)
		k := indexChunked(data, i, lim, '\n', s.stopped)
		switch {
		case k < lim: // a whole line
			if containsFold(data[i:k], w) {
				return true
			}
			i = k + 1
		case lim < end: // the line goes on past maxSearchLine
			if containsFold(data[i:i+maxSearchLine], w) {
				return true
			}
			s.searchCut = true
			i = skipLine(data, lim, end, s.stopped)
		default: // the line ends with the data (or the call ended)
			if containsFold(data[i:end], w) {
				return true
			}
			if end == s.goesOnAt || s.stopped() {
				s.searchCut = true
			}
			return false
		}
	}
	return false
}

// prevLineStart is the start of the line before the one starting at i (> 0).
func prevLineStart(data []byte, i int) int {
	return bytes.LastIndexByte(data[:i-1], '\n') + 1
}

// skipNULs is the index of the first byte other than NUL in data[from:hi]
// (hi when none, or when stop says the call has ended), searched in
// skipChunk steps between which stop (when given) is asked.
func skipNULs(data []byte, from, hi int, stop func() bool) int {
	for from < hi {
		end := min(hi, from+skipChunk)
		for i := from; i < end; i++ {
			if data[i] != 0 {
				return i
			}
		}
		from = end
		if stop != nil && stop() {
			return hi
		}
	}
	return hi
}

// nulRuns counts the runs of NUL bytes that start a line of b: holes a
// copytruncate rotation (or a writer past a truncation) left in the file.
func nulRuns(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] == 0 && (i == 0 || b[i-1] == '\n') {
			n++
		}
	}
	return n
}
