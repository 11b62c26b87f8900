package logs

import (
	"bytes"
)

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
			if (s.lay.Partial == nil || j <= done || !s.lay.Partial(s.lastLine(data, j))) && s.isHeader(line) {
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
