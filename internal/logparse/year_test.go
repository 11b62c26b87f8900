package logparse

import (
	"testing"
	"time"
)

// A yearless stamp takes the year of the reference (the file's mtime), not
// the wall clock's: a stamp a few hours after an mtime in 2019 is in 2019,
// one more than a day after it is in the year before, and an mtime on New
// Year's morning puts a December 31 stamp in the old year.
func TestYearlessStampFollowsTheReference(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ref   time.Time
		stamp string
		want  time.Time
	}{
		{"a few hours after the mtime", time.Date(2019, 6, 10, 8, 0, 0, 0, time.UTC), "Jun 10 13:30:00 host app: x", time.Date(2019, 6, 10, 13, 30, 0, 0, time.UTC)},
		{"before the mtime", time.Date(2019, 6, 10, 8, 0, 0, 0, time.UTC), "Mar  2 01:02:03 host app: x", time.Date(2019, 3, 2, 1, 2, 3, 0, time.UTC)},
		{"more than a day after: last year", time.Date(2019, 6, 10, 8, 0, 0, 0, time.UTC), "Jun 12 08:00:00 host app: x", time.Date(2018, 6, 12, 8, 0, 0, 0, time.UTC)},
		{"new year's morning", time.Date(2021, 1, 1, 0, 30, 0, 0, time.UTC), "Dec 31 23:59:00 host app: x", time.Date(2020, 12, 31, 23, 59, 0, 0, time.UTC)},
	} {
		tc := &TimeCtx{Loc: time.UTC}
		tc.SetRef(tt.ref.UnixNano())
		ns, n, ok := syslogTime([]byte(tt.stamp), tc)
		if !ok || n != 15 || ns != tt.want.UnixNano() {
			t.Errorf("%s: %q read as %v (ok %v), want %v", tt.name, tt.stamp, time.Unix(0, ns).UTC(), ok, tt.want)
		}
	}
}

// An access-log stamp with a negative offset is that many hours later in
// UTC, whatever the source's zone; without an offset the zone applies.
func TestAccessLogOffset(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	tc := &TimeCtx{Loc: tokyo, Year: 2026}
	for _, tt := range []struct {
		stamp string
		want  time.Time
		n     int
	}{
		{"10/Oct/2000:13:55:36 -0700] \"GET /", time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC), 26},
		{"10/Oct/2000:13:55:36 +0530] \"GET /", time.Date(2000, 10, 10, 8, 25, 36, 0, time.UTC), 26},
		{"10/Oct/2000:13:55:36] \"GET /", time.Date(2000, 10, 10, 4, 55, 36, 0, time.UTC), 20},
	} {
		ns, n, ok := clfTime([]byte(tt.stamp), tc)
		if !ok || n != tt.n || ns != tt.want.UnixNano() {
			t.Errorf("%q read as %v (%d bytes, ok %v), want %v (%d bytes)", tt.stamp, time.Unix(0, ns).UTC(), n, ok, tt.want, tt.n)
		}
	}
}
