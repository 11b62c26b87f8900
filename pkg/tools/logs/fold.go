package logs

import (
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
)

// foldMargin is how near a change of the source zone's offset the window
// (its edges) must come for the files to be read in order from their
// start: an entry of a repeated hour is placed by the entries before it
// (see placeFold), which a binary search or a search for a word's matches
// would skip.
const foldMargin = 3 * time.Hour

// foldNear reports whether loc changes its offset within foldMargin of the
// window [startNS, endNS].
func foldNear(loc *time.Location, startNS, endNS int64) bool {
	if loc == nil || loc == time.UTC {
		return false
	}
	from := time.Unix(0, startNS).Add(-foldMargin).In(loc)
	to := time.Unix(0, endNS).Add(foldMargin)
	for t := from; !t.After(to); {
		_, end := t.ZoneBounds()
		if end.IsZero() {
			return false
		}
		if !end.After(to) {
			_, before := end.Add(-time.Second).Zone()
			if _, after := end.Zone(); before != after {
				return true
			}
		}
		t = end
	}
	return false
}

// foldState follows a file's entries in order to place the stamps of an
// hour the zone repeats: the last placed entry's time, and whether it was
// placed for sure.
type foldState struct {
	last  int64
	known bool
}

// placeFold places an entry read at r.TS by the file's order when its
// stamp was a wall clock the zone's change repeats or skips (fold): in a
// repeated hour the first pass is the early reading and the second the
// late one, told apart by the stamps going back about the change's length
// once; an entry that order cannot place (the file starts in the hour, or
// the hour was skipped) is ambiguous: r.TS is its early reading and late
// the other. Every timed entry is noted in order.
func (s *scanner) placeFold(fold logparse.Fold, r *logparse.Record) (late int64, ambiguous bool) {
	st := &s.fold
	if !fold.On {
		st.last, st.known = r.TS, true
		return 0, false
	}
	half := (fold.Late - fold.Early) / 2
	switch {
	case fold.Gap:
		ambiguous = true
	case st.known && fold.Early >= st.last-half:
		r.TS = fold.Early // first pass: the hour entered from before it
	case st.last != 0 && fold.Early < st.last-half && fold.Late >= st.last-half:
		r.TS = fold.Late // the stamps went back by the change: second pass
	default:
		ambiguous = true
	}
	if ambiguous {
		r.TS = fold.Early
		st.last, st.known = max(st.last, fold.Early), false
		return fold.Late, true
	}
	st.last, st.known = r.TS, true
	return 0, false
}
