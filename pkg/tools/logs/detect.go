package logs

import (
	"bytes"
	"fmt"

	"github.com/superbiz/superbiz/internal/logparse"
)

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
		// (one too long to cross within probeSpan is not sampled)
		if next, known := s.probeLineStart(data, off, probeSpan); known && (next < len(data) || data[len(data)-1] == '\n') {
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
	s.fold = foldState{}
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
	if len(s.q.words) > 0 && l.Join == nil && !s.inOrder {
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

// holeRun is the length from which a run of NULs inside a line is taken
// for a hole, not for binary data.
const holeRun = 64

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
	n, size := 0, len(b)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 0 {
			// a run of NULs at a line start or of holeRun bytes is a hole
			// (copytruncate, a file preallocated or written past a
			// truncation), not data
			j := i
			for j < len(b) && b[j] == 0 {
				j++
			}
			if i == 0 || b[i-1] == '\n' || j-i >= holeRun {
				size -= j - i
				i = j - 1
				continue
			}
		}
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			n++
		}
	}
	return n*16 > size
}
