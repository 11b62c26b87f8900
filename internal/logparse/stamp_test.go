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
		{"compact unpadded clock", compactTime, "20171224-0:0:0:215|x", time.Date(2017, 12, 24, 0, 0, 0, 215e6, time.UTC), 18},
		{"compact unpadded second", compactTime, "20171223-22:15:2:606|x", time.Date(2017, 12, 23, 22, 15, 2, 606e6, time.UTC), 20},
		{"compact unpadded millis", compactTime, "20171224-1:2:3:7|x", time.Date(2017, 12, 24, 1, 2, 3, 7e6, time.UTC), 16},
	} {
		ns, n, ok := tt.read([]byte(tt.stamp), tc)
		if !ok || n != tt.n || ns != tt.want.UnixNano() {
			t.Errorf("%s: %v (%d bytes, ok %v), want %v (%d bytes)", tt.name, time.Unix(0, ns).UTC(), n, ok, tt.want, tt.n)
		}
	}
	for _, bad := range []string{"08x109 203615", "17/06/09 20:1x:40", "20171223-22:15:29:6x6", "20171223-223:15:29:606", "20171223-22::29:606", "20171223-22:15:29:6060"} {
		for _, read := range []func([]byte, *TimeCtx) (int64, int, bool){yymmddTime, yySlashTime, compactTime} {
			if _, _, ok := read([]byte(bad), tc); ok {
				t.Errorf("%q was read as a stamp", bad)
			}
		}
	}
}

// A line that starts with a date or a clock is stamp-like (never glued to
// the entry before it); addresses, versions, counts and frames are not.
func TestStampLike(t *testing.T) {
	for line, want := range map[string]bool{
		"20171224-0:0:0:215|Step_LSC|30002312|x": true,
		"2025-12-10 06:55:46 ERROR x":            true,
		"2025/12/10 x y":                         true,
		"2025/12/10 06 x":                        true,
		"17/06/09 20:10:40 INFO x":               true,
		"[10.30 16:49:06] chrome.exe - x":        true,
		"12:30:45 restarted":                     true,
		"10.0.0.1 - - [10/Oct/2000:13:55:36]":    false,
		"192.168.1.1:8080 refused":               false,
		"1.2.3 released":                         false,
		"\tat com.shop.Pay.charge(Pay.java:42)":  false,
		"12345 rows affected":                    false,
		"":                                       false,
	} {
		if got := StampLike([]byte(line)); got != want {
			t.Errorf("StampLike(%q) = %v, want %v", line, got, want)
		}
	}
}

// Under the strict continuation rule a stamp-like line that a layout cannot
// read starts an untimed entry instead of continuing the previous one.
func TestStrictContinuation(t *testing.T) {
	tc := &TimeCtx{Loc: time.UTC, Year: 2026}
	l := LayoutByName(LayoutCompact)
	var r Record
	for line, want := range map[string]LineKind{
		"20171224-0:0:0:215|Step_LSC|30002312|onStandStepChanged 3579": LineTimed,
		"20171224-0:0:0:2156|Step_LSC|30002312|five-digit millis":      LineUntimed,
		"2017-12-24 00:00:00 another layout's stamp":                   LineUntimed,
		"    at com.huawei.health.Step.flush(Step.java:42)":            LineCont,
	} {
		if got := l.ParseLine([]byte(line), tc, &r); got != want {
			t.Errorf("%q: kind %d, want %d", line, got, want)
		}
	}
}
