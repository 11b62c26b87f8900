package logs

import (
	"bytes"

	"github.com/superbiz/superbiz/internal/logparse"
)

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
	// a joined entry cut at its bound says so when it is returned
	s.partsCut = hay != nil && cut
	defer func() { s.partsCut = false }()
	s.judge(line, cont, -1, func(_ int, w []byte) bool {
		if hay != nil {
			if containsFold(hay, w) {
				return true
			}
			s.searchCut = s.searchCut || cut // the parts past the bound were not searched
			return false
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
	if kind == logparse.LineTimed && r.Level == "" && s.lay.LevelNext != nil {
		// the level stands on the line after the stamp (java.util.logging)
		r.Level = s.lay.LevelNext(firstLine(cont))
	}
	ambiguous := false
	if kind == logparse.LineTimed {
		var late int64
		late, ambiguous = s.placeFold(s.tc.Fold, r)
		if ambiguous {
			// judged by the reading inside the window; counted apart unless
			// both readings lie in it
			in := func(ts int64) bool { return ts >= s.q.startNS && ts <= s.q.endNS }
			early := r.TS
			if !in(early) && in(late) {
				r.TS = late
			}
			ambiguous = in(early) != in(late)
		}
		s.noteTime(r.TS)
	}
	if s.pf == nil {
		s.notePlace(kind, r.TS)
	}
	v := s.passes(kind, r)
	if v == failed {
		return
	}
	s.searchCut = false
	for i, w := range s.q.words {
		if !has(i, w) {
			if s.searchCut {
				// the word may lie in what was not searched: no negative
				s.acc.containsCut++
			}
			return
		}
	}
	if ambiguous {
		s.acc.timeAmbiguous++
		return
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
		glued = s.textLines(cont)
	}
	s.acc.glued += glued
	s.acc.add(r, cont, s.partsCut)
}

// firstLine is b up to its first newline.
func firstLine(b []byte) []byte {
	if k := bytes.IndexByte(b, '\n'); k >= 0 {
		return b[:k]
	}
	return b
}

// textLines counts the lines of b that hold more than white space. b may be
// a continuation of gigabytes (a huge line glued to the entry before it, a
// sparse file's hole): it is searched in skipChunk steps between which the
// call's context is checked, and a stopped count is a lower bound (the call
// then says truncated_by).
func (s *scanner) textLines(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		end := indexChunked(b, i, len(b), '\n', s.stopped)
		if len(bytes.TrimSpace(b[i:end])) > 0 {
			n++
		}
		i = end + 1
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
	s.acc.add(r, nil, false)
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
