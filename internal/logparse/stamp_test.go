package logparse

import (
	"testing"
	"time"
)

// The fixed-width stamp readers give the exact instant, to the second and
// millisecond, and refuse a stamp with a non-digit where a number belongs.
func TestFixedWidthStamps(t *testing.T) {
	tc := &TimeCtx{Loc: time.UTC, Year: 2026}
	for _, tt := range []struct {
		name  string
		read  func([]byte, *TimeCtx) (int64, int, bool)
		stamp string
		want  time.Time
		n     int
	}{
		{"hdfs yyMMdd HHmmss", yymmddTime, "081109 203615 rest", time.Date(2008, 11, 9, 20, 36, 15, 0, time.UTC), 13},
		{"spark yy/MM/dd HH:mm:ss", yySlashTime, "17/06/09 20:10:40 INFO x", time.Date(2017, 6, 9, 20, 10, 40, 0, time.UTC), 17},
		{"compact yyyyMMdd-HH:mm:ss:SSS", compactTime, "20171223-22:15:29:606|x", time.Date(2017, 12, 23, 22, 15, 29, 606e6, time.UTC), 21},
	} {
		ns, n, ok := tt.read([]byte(tt.stamp), tc)
		if !ok || n != tt.n || ns != tt.want.UnixNano() {
			t.Errorf("%s: %v (%d bytes, ok %v), want %v (%d bytes)", tt.name, time.Unix(0, ns).UTC(), n, ok, tt.want, tt.n)
		}
	}
	for _, bad := range []string{"08x109 203615", "17/06/09 20:1x:40", "20171223-22:15:29:6x6"} {
		for _, read := range []func([]byte, *TimeCtx) (int64, int, bool){yymmddTime, yySlashTime, compactTime} {
			if _, _, ok := read([]byte(bad), tc); ok {
				t.Errorf("%q was read as a stamp", bad)
			}
		}
	}
}
