package logparse

import "time"

// Fold is what a stamp without a zone is when its zone changed its offset
// around it (daylight saving time): the wall clock of the hour a fall-back
// repeats names two instants, and that of the hour a spring-forward skips
// names none. The reader of a file tells the two passes of a repeated hour
// apart by their order in the file (docs/SPEC.md, "Daylight saving time").
type Fold struct {
	// On says the stamp read was such a wall clock; Early and Late are its
	// two readings (the offsets before and after the change), Early < Late.
	On          bool
	Early, Late int64
	// Gap says the wall clock was skipped (spring-forward): neither reading
	// is a time the zone's clocks showed.
	Gap bool
}

// local is the instant of a wall clock without its own zone in tc.Loc. A
// wall clock a change of offset repeats or skips is noted in tc.Fold, with
// both readings; the instant returned is the early one.
func (tc *TimeCtx) local(y, mo, d, h, mi, s, frac int) int64 {
	t := time.Date(y, time.Month(mo), d, h, mi, s, frac, tc.Loc)
	if tc.Loc == time.UTC {
		return t.UnixNano()
	}
	wall := time.Date(y, time.Month(mo), d, h, mi, s, frac, time.UTC).Unix()
	// the changes next to t: the one that ends its period and the one that
	// starts it (ZoneBounds is zero where the zone has none)
	start, end := t.ZoneBounds()
	for _, c := range [...]time.Time{start, end} {
		if c.IsZero() {
			continue
		}
		_, before := c.Add(-time.Second).Zone()
		_, after := c.Zone()
		if before == after {
			continue
		}
		// the wall clock read with each offset, and whether that offset was
		// the zone's at the instant it names
		early, late := wall-int64(max(before, after)), wall-int64(min(before, after))
		okBefore := wall-int64(before) < c.Unix()
		okAfter := wall-int64(after) >= c.Unix()
		switch {
		case okBefore && okAfter: // repeated (fall-back)
			tc.Fold = Fold{On: true, Early: early*1e9 + int64(frac), Late: late*1e9 + int64(frac)}
			return tc.Fold.Early
		case !okBefore && !okAfter: // skipped (spring-forward)
			tc.Fold = Fold{On: true, Gap: true, Early: early*1e9 + int64(frac), Late: late*1e9 + int64(frac)}
			return tc.Fold.Early
		}
	}
	return t.UnixNano()
}
