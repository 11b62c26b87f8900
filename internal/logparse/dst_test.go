package logparse

import (
	"testing"
	"time"
)

// A wall clock without a zone that New York's clocks showed twice (the
// fall-back hour) or never (the spring-forward hour) is noted in Fold with
// both readings; any other is one instant and no fold.
func TestLocalFolds(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	utc := func(s string) int64 {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UnixNano()
	}
	for _, tt := range []struct {
		stamp       string
		fold, gap   bool
		early, late string
	}{
		{"2026-11-01 00:59:59", false, false, "2026-11-01T04:59:59Z", ""},
		{"2026-11-01 01:00:00", true, false, "2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z"},
		{"2026-11-01 01:59:59", true, false, "2026-11-01T05:59:59Z", "2026-11-01T06:59:59Z"},
		{"2026-11-01 02:00:00", false, false, "2026-11-01T07:00:00Z", ""},
		{"2026-03-08 01:59:59", false, false, "2026-03-08T06:59:59Z", ""},
		{"2026-03-08 02:30:00", true, true, "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z"},
		{"2026-03-08 03:00:00", false, false, "2026-03-08T07:00:00Z", ""},
		{"2026-07-01 12:00:00", false, false, "2026-07-01T16:00:00Z", ""},
	} {
		tc := TimeCtx{Loc: ny}
		ts, _, ok := isoTime([]byte(tt.stamp), &tc)
		if !ok {
			t.Fatalf("%s: not read", tt.stamp)
		}
		if ts != utc(tt.early) || tc.Fold.On != tt.fold || tc.Fold.Gap != tt.gap {
			t.Errorf("%s: %s fold %+v; want %s fold %v gap %v", tt.stamp, time.Unix(0, ts).UTC(), tc.Fold, tt.early, tt.fold, tt.gap)
			continue
		}
		if tt.fold && (tc.Fold.Early != ts || tc.Fold.Late != utc(tt.late)) {
			t.Errorf("%s: readings %s, %s; want %s, %s", tt.stamp, time.Unix(0, tc.Fold.Early).UTC(), time.Unix(0, tc.Fold.Late).UTC(), tt.early, tt.late)
		}
		// a stamp with its own zone is never a fold
		tc = TimeCtx{Loc: ny}
		if _, _, ok := isoTime([]byte(tt.stamp+"-04:00"), &tc); !ok || tc.Fold.On {
			t.Errorf("%s-04:00: fold %+v", tt.stamp, tc.Fold)
		}
	}
}
