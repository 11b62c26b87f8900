package loglayout

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo
)

// TestTimeLayouts reads stamps with Go, strftime and epoch layouts, in the
// given zone when the stamp has none.
func TestTimeLayouts(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		layout, stamp string
		want          string // RFC 3339 in UTC
	}{
		{"2006-01-02 15:04:05.000", "2026-03-01 20:00:00.250", "2026-03-01T12:00:00.25Z"},
		{"%Y-%m-%d %H:%M:%S,%L", "2026-03-01 20:00:00,250", "2026-03-01T12:00:00.25Z"},
		{"%d/%b/%Y:%H:%M:%S %z", "10/Oct/2000:13:55:36 -0700", "2000-10-10T20:55:36Z"},
		{"%y%m%d %H%M%S", "081109 203615", "2008-11-09T12:36:15Z"},
		{"%Y-%m-%dT%H:%M:%S.%f", "2026-03-01T20:00:00.123456", "2026-03-01T12:00:00.123456Z"},
		{"%F %T", "2026-03-01 20:00:00", "2026-03-01T12:00:00Z"},
		{"%I:%M:%S %p %m/%d/%Y", "08:00:00 PM 03/01/2026", "2026-03-01T12:00:00Z"},
		{"02 Jan 2006 15:04 MST", "01 Mar 2026 12:00 UTC", "2026-03-01T12:00:00Z"},
		{"unix", "1772366400", "2026-03-01T12:00:00Z"},
		{"unix", "1772366400.5", "2026-03-01T12:00:00.5Z"},
		{"unix_ms", "1772366400250", "2026-03-01T12:00:00.25Z"},
		{"unix_us", "1772366400250000", "2026-03-01T12:00:00.25Z"},
		{"unix_ns", "1772366400250000000", "2026-03-01T12:00:00.25Z"},
	}
	for _, tt := range tests {
		l, err := Compile(`(?P<ts>.+)\|(?P<msg>.*)`, tt.layout)
		if err != nil {
			t.Fatalf("%s: %v", tt.layout, err)
		}
		ns, ok := l.Time([]byte(tt.stamp), shanghai, 2026, 0)
		if !ok {
			t.Errorf("%s: %q does not parse", tt.layout, tt.stamp)
			continue
		}
		if got := time.Unix(0, ns).UTC().Format(time.RFC3339Nano); got != tt.want {
			t.Errorf("%s: %q read as %s, want %s", tt.layout, tt.stamp, got, tt.want)
		}
	}
}

// TestYearInferred: a layout without a year takes the window's year, or
// the year before when the stamp would be more than a day past the window.
func TestYearInferred(t *testing.T) {
	l, err := Compile(`(?P<ts>\S+ \S+) (?P<msg>.*)`, "%m-%d %H:%M:%S")
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC).UnixNano()
	for stamp, want := range map[string]int{"01-01 23:00:00": 2026, "12-31 23:00:00": 2025} {
		ns, ok := l.Time([]byte(stamp), time.UTC, 2026, end)
		if !ok || time.Unix(0, ns).UTC().Year() != want {
			t.Errorf("%s: year %d (ok %v), want %d", stamp, time.Unix(0, ns).UTC().Year(), ok, want)
		}
	}
}

// TestBadStamps: text that is not a stamp of the layout does not parse.
func TestBadStamps(t *testing.T) {
	for layout, stamps := range map[string][]string{
		"2006-01-02 15:04:05": {"", "2026-13-01 00:00:00", "yesterday", "2026-03-01"},
		"unix":                {"", "-5", "12a", "1.", "1.1234567891", strings.Repeat("9", 40)},
		"unix_ns":             {"1.5"},
	} {
		l, err := Compile(`(?P<ts>\S+) (?P<msg>.*)`, layout)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stamps {
			if ns, ok := l.Time([]byte(s), time.UTC, 2026, 0); ok {
				t.Errorf("%s: %q parsed as %d", layout, s, ns)
			}
		}
	}
}

// TestCompileErrors names the key at fault for each bad layout.
func TestCompileErrors(t *testing.T) {
	tests := []struct{ pattern, layout, key, text string }{
		{"", "unix", KeyPattern, "missing"},
		{strings.Repeat("a", MaxPattern+1), "unix", KeyPattern, "more than"},
		{`(?P<ts>\d+`, "unix", KeyPattern, "not a valid regular expression"},
		{`(?P<msg>.*)`, "unix", KeyPattern, "no (?P<ts>"},
		{`(?P<ts>\d+)`, "unix", KeyPattern, "no (?P<msg>"},
		{`(?P<ts>\d+) (?P<x>\S+) (?P<x>.*)(?P<msg>)`, "unix", KeyPattern, `"x" is used twice`},
		{`(?P<ts>\d+) (?P<msg>.*)`, "", KeyTimeLayout, "missing"},
		{`(?P<ts>\d+) (?P<msg>.*)`, "15:04:05", KeyTimeLayout, "no month"},
		{`(?P<ts>\d+) (?P<msg>.*)`, "2006-01-02 03:04", KeyTimeLayout, "no hour"},
		{`(?P<ts>\d+) (?P<msg>.*)`, "%Y-%m-%d %H:%M %", KeyTimeLayout, "lone %"},
		{`(?P<ts>\d+) (?P<msg>.*)`, "%Y-%m-%d %H:%M %s", KeyTimeLayout, "unsupported directive: %s"},
		{`(?P<ts>\d+) (?P<msg>.*)`, "%Y-%m-%d Mon %H:%M", KeyTimeLayout, "unsupported literal: Mon"},
		{`(?P<ts>\d+) (?P<msg>.*)`, "%Y-%m-%d %H:%M:%S%L", KeyTimeLayout, "must follow '.' or ','"},
		{`(?P<ts>\d+) (?P<msg>.*)`, strings.Repeat("2006-01-02 15:04 ", 10), KeyTimeLayout, "more than"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.pattern, tt.layout)
		var le *Error
		if !errors.As(err, &le) || le.Key != tt.key || !strings.Contains(le.Problem, tt.text) {
			t.Errorf("Compile(%.40q, %q) = %v; want %s: …%s…", tt.pattern, tt.layout, err, tt.key, tt.text)
		}
	}
}

// TestPatternAnchored: the pattern is matched from the line's start only.
func TestPatternAnchored(t *testing.T) {
	l, err := Compile(`(?P<ts>\d{10}) (?P<msg>.*)`, "unix")
	if err != nil {
		t.Fatal(err)
	}
	if l.Match([]byte("1772366400 ok")) == nil || l.Match([]byte("x 1772366400 ok")) != nil {
		t.Error("the pattern is not anchored at the line's start")
	}
}

// FuzzCompile: any pattern and layout either compile or give an *Error;
// a compiled layout matches and reads any line without panicking.
func FuzzCompile(f *testing.F) {
	f.Add(`(?P<ts>\S+ \S+) (?P<level>\w+) (?P<msg>.*)`, "2006-01-02 15:04:05", "2026-03-01 12:00:00 ERROR boom")
	f.Add(`\[(?P<ts>[^\]]+)\] (?P<msg>.*)`, "%d/%b/%Y:%H:%M:%S %z", "[10/Oct/2000:13:55:36 -0700] GET /")
	f.Add(`(?P<ts>\d+) (?P<msg>.*)`, "unix_ms", "1700000000123 x")
	f.Fuzz(func(t *testing.T, pattern, layout, line string) {
		l, err := Compile(pattern, layout)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if m := l.Match([]byte(line)); m != nil && m[2*l.TS] >= 0 {
			l.Time([]byte(line[m[2*l.TS]:m[2*l.TS+1]]), time.UTC, 2026, 0)
		}
		_ = l.CheckSample(line, time.UTC)
	})
}
