// Package loglayout compiles the custom line layouts of [[logs]] sources
// (format = "custom"): a regular expression with named groups and a time
// layout. It is a leaf, so internal/config validates a layout at load with the
// very code internal/logparse parses lines with.
//
// Groups: ts (required) is the entry's time, msg (required) its message,
// level and service are optional, and every other named group becomes a
// field. The pattern is matched from the start of the line (an implicit ^);
// a line it does not match continues the previous entry (a stack frame).
//
// Time layouts: a layout holding '%' is strftime (%Y-%m-%d %H:%M:%S); any
// other is a Go reference layout (2006-01-02 15:04:05); "unix", "unix_ms",
// "unix_us" and "unix_ns" read an epoch number. Go layouts never contain
// '%', so the two kinds cannot be confused.
package loglayout

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ncruces/go-strftime"
)

// MaxPattern bounds a pattern's length: Go's RE2 matches in time linear in
// the line, and this keeps the compiled program (and its per-line cost) small.
const MaxPattern = 2048

// MaxTimeLayout bounds a time layout's length.
const MaxTimeLayout = 128

// MaxSample bounds the sample line checked at load.
const MaxSample = 4096

// Group names with a meaning of their own; other named groups are fields.
const (
	GroupTime    = "ts"
	GroupLevel   = "level"
	GroupService = "service"
	GroupMsg     = "msg"
)

// The config keys a layout is written in, named in every error.
const (
	KeyPattern    = "pattern"
	KeyTimeLayout = "time_layout"
	KeySample     = "sample"
)

// Epoch time layouts: the ts group is a number of these units since 1970.
const (
	EpochSeconds = "unix"
	EpochMillis  = "unix_ms"
	EpochMicros  = "unix_us"
	EpochNanos   = "unix_ns"
)

// Error is a layout that cannot be used: Key is the config key at fault
// (KeyPattern, KeyTimeLayout or KeySample) and Problem says what to fix.
type Error struct {
	Key     string
	Problem string
}

func (e *Error) Error() string { return e.Key + ": " + e.Problem }

func bad(key, format string, args ...any) *Error {
	return &Error{Key: key, Problem: fmt.Sprintf(format, args...)}
}

// Field is a named group that becomes an entry field.
type Field struct {
	Name  string
	Group int
}

// Layout is a compiled custom layout; it is safe for concurrent use.
type Layout struct {
	re *regexp.Regexp
	// Group indexes of the roles (-1 when the pattern has none).
	TS, Level, Service, Msg int
	// Fields are the other named groups, in pattern order.
	Fields []Field
	// goLayout is the Go reference layout ("" for an epoch layout).
	goLayout string
	// epochUnit is the ns per unit of an epoch layout (0 otherwise).
	epochUnit int64
	// hasYear is false when the layout leaves the year out (syslog style):
	// it is inferred from the query window, like syslog stamps.
	hasYear bool
	// source is the time layout as written, for messages.
	source string
}

// Compile checks and compiles a pattern and a time layout; the error is an
// *Error naming the key at fault.
func Compile(pattern, timeLayout string) (*Layout, error) {
	if strings.TrimSpace(pattern) == "" {
		return nil, bad(KeyPattern, `missing: format = "custom" needs a regular expression with (?P<ts>…) and (?P<msg>…) groups`)
	}
	if len(pattern) > MaxPattern {
		return nil, bad(KeyPattern, "%d bytes long, more than the %d allowed", len(pattern), MaxPattern)
	}
	re, err := regexp.Compile(`^(?:` + pattern + `)`)
	if err != nil {
		// compile the pattern alone so the message does not show the wrapper
		if _, err2 := regexp.Compile(pattern); err2 != nil {
			err = err2
		}
		return nil, bad(KeyPattern, "not a valid regular expression (Go RE2 syntax): %v", err)
	}
	l := &Layout{re: re, TS: -1, Level: -1, Service: -1, Msg: -1}
	seen := map[string]bool{}
	for i, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		if seen[name] {
			return nil, bad(KeyPattern, "group name %q is used twice: each named group must be unique", name)
		}
		seen[name] = true
		switch name {
		case GroupTime:
			l.TS = i
		case GroupLevel:
			l.Level = i
		case GroupService:
			l.Service = i
		case GroupMsg:
			l.Msg = i
		default:
			l.Fields = append(l.Fields, Field{Name: name, Group: i})
		}
	}
	if l.TS < 0 {
		return nil, bad(KeyPattern, "has no (?P<ts>…) group: name the group that holds the entry's time ts")
	}
	if l.Msg < 0 {
		return nil, bad(KeyPattern, "has no (?P<msg>…) group: name the group that holds the message msg")
	}
	if err := l.setTime(timeLayout); err != nil {
		return nil, err
	}
	return l, nil
}

// setTime compiles the time layout into the Layout.
func (l *Layout) setTime(s string) error {
	l.source = s
	switch s {
	case "":
		return bad(KeyTimeLayout, `missing: write a Go layout ("2006-01-02 15:04:05.000"), a strftime layout ("%%Y-%%m-%%d %%H:%%M:%%S") or unix, unix_ms, unix_us, unix_ns`)
	case EpochSeconds:
		l.epochUnit = int64(time.Second)
	case EpochMillis:
		l.epochUnit = int64(time.Millisecond)
	case EpochMicros:
		l.epochUnit = int64(time.Microsecond)
	case EpochNanos:
		l.epochUnit = 1
	}
	if l.epochUnit != 0 {
		l.hasYear = true
		return nil
	}
	if len(s) > MaxTimeLayout {
		return bad(KeyTimeLayout, "%d bytes long, more than the %d allowed", len(s), MaxTimeLayout)
	}
	goLayout := s
	if strings.Contains(s, "%") {
		g, err := strftimeToGo(s)
		if err != nil {
			return err
		}
		goLayout = g
	}
	hasYear, err := checkGoLayout(goLayout)
	if err != nil {
		return err
	}
	l.goLayout, l.hasYear = goLayout, hasYear
	return nil
}

// reference is the instant a Go layout is checked with: every element
// differs from what time.Parse assumes when the layout leaves it out.
var reference = time.Date(2026, time.November, 27, 13, 45, 56, 123456789, time.UTC)

// checkGoLayout formats the reference instant with layout and parses it
// back: month, day, hour and minute must survive (a time needs them), the
// year may be missing (it is inferred); hasYear says whether it survived.
func checkGoLayout(layout string) (hasYear bool, err error) {
	text := reference.Format(layout)
	got, perr := time.Parse(layout, text)
	if perr != nil {
		return false, bad(KeyTimeLayout, "%q cannot read back what it writes (%v): check the layout", layout, perr)
	}
	missing := []string{}
	if got.Month() != reference.Month() {
		missing = append(missing, "month (01, Jan or %m)")
	}
	if got.Day() != reference.Day() {
		missing = append(missing, "day (02, _2 or %d)")
	}
	if got.Hour() != reference.Hour() {
		missing = append(missing, "hour (15, or 03 with PM; %H)")
	}
	if got.Minute() != reference.Minute() {
		missing = append(missing, "minute (04 or %M)")
	}
	if len(missing) > 0 {
		return false, bad(KeyTimeLayout, "%q has no %s: a Go layout writes the reference time Mon Jan 2 15:04:05 MST 2006", layout, strings.Join(missing, ", no "))
	}
	return got.Year() == reference.Year(), nil
}

// strftimeToGo translates a strftime layout with go-strftime, which refuses
// a directive it does not know, %f, %L or %N not after '.' or ',', and
// literal text holding a digit or a word Go reads as an element (Jan, Mon,
// MST, PM), since Go layouts cannot escape it. A trailing lone '%', which
// go-strftime would keep as text, is refused too.
func strftimeToGo(s string) (string, error) {
	if n := len(s) - len(strings.TrimRight(s, "%")); n%2 == 1 {
		return "", bad(KeyTimeLayout, "%q ends with a lone %%", s)
	}
	g, err := strftime.Layout(s)
	if err != nil {
		return "", bad(KeyTimeLayout, "%q: %s: use the directives %%Y %%y %%m %%d %%e %%j %%H %%I %%M %%S %%p %%b %%B %%a %%A %%z %%Z %%F %%T %%%% (and %%f, %%L, %%N after '.' or ','), and match literal digits or the words Jan, Mon, MST, PM in the pattern outside the ts group",
			s, strings.TrimSpace(strings.TrimPrefix(err.Error(), "strftime: ")))
	}
	return g, nil
}

// Match returns the submatch indexes of line (as regexp's
// FindSubmatchIndex) or nil when the line does not match.
func (l *Layout) Match(line []byte) []int {
	return l.re.FindSubmatchIndex(line)
}

// Time reads the ts group's text. A stamp without a zone is in loc; one
// without a year takes the year the window ends in (year), or the year
// before when that would put it more than a day after the window's end
// (endNS), as syslog stamps do.
func (l *Layout) Time(b []byte, loc *time.Location, year int, endNS int64) (int64, bool) {
	if l.epochUnit != 0 {
		return epoch(b, l.epochUnit)
	}
	t, err := time.ParseInLocation(l.goLayout, string(b), loc)
	if err != nil {
		return 0, false
	}
	if l.hasYear {
		return t.UnixNano(), true
	}
	if year == 0 {
		year = time.Now().Year()
	}
	at := func(y int) int64 {
		return time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).UnixNano()
	}
	ns := at(year)
	if endNS != 0 && ns > endNS+int64(24*time.Hour) {
		ns = at(year - 1)
	}
	return ns, true
}

// epoch reads a decimal number (an optional fraction) of units of unit ns.
func epoch(b []byte, unit int64) (int64, bool) {
	if len(b) == 0 || len(b) > 32 {
		return 0, false
	}
	s := string(b)
	intPart, frac, hasFrac := strings.Cut(s, ".")
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return 0, false
	}
	ns := n * unit
	if hasFrac && unit > 1 {
		if frac == "" || len(frac) > 9 {
			return 0, false
		}
		f, err := strconv.ParseUint(frac, 10, 64)
		if err != nil {
			return 0, false
		}
		for range 9 - len(frac) {
			f *= 10
		}
		ns += int64(f) * unit / int64(time.Second)
	} else if hasFrac {
		return 0, false
	}
	return ns, true
}

// CheckSample parses a sample line with the layout, as at load: it must
// match the pattern and its ts group must parse.
func (l *Layout) CheckSample(sample string, loc *time.Location) error {
	if len(sample) > MaxSample {
		return bad(KeySample, "%d bytes long, more than the %d allowed", len(sample), MaxSample)
	}
	m := l.Match([]byte(sample))
	if m == nil {
		return bad(KeySample, "does not match pattern: check the pattern against this line")
	}
	if m[2*l.TS] < 0 {
		return bad(KeySample, "matches pattern but its ts group matched nothing")
	}
	ts := sample[m[2*l.TS]:m[2*l.TS+1]]
	if _, ok := l.Time([]byte(ts), loc, 0, 0); !ok {
		return bad(KeySample, "its ts group %q does not parse with time_layout %q", ts, l.source)
	}
	return nil
}
