package logparse

import (
	"strconv"
	"time"
)

// TimeCtx is what a timestamp without its own zone or year needs: the
// source's zone and a reference instant (the file's last write, else the
// query window's end) no line can be much later than.
type TimeCtx struct {
	Loc *time.Location
	// Year and endNS let stamps without a Year ("Jan _2 15:04:05", glog,
	// logcat) pick one: the reference's Year, or the Year before when that
	// would put the stamp more than a day after the reference.
	Year  int
	EndNS int64
	// Fold is set by the last stamp read without a zone whose wall clock a
	// change of Loc's offset made ambiguous or impossible (see dst.go); the
	// reader clears it before each line.
	Fold Fold
}

// SetRef makes ns (Unix nanoseconds) the reference for stamps without a year.
func (tc *TimeCtx) SetRef(ns int64) {
	tc.EndNS = ns
	tc.Year = time.Unix(0, ns).In(tc.Loc).Year()
}

// noYear places a stamp that has no year (see timeCtx); ok is false when a
// field is out of range.
func (tc *TimeCtx) noYear(mo, d, h, mi, s, frac int) (int64, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 {
		return 0, false
	}
	year := tc.Year
	if year == 0 {
		year = time.Now().Year()
	}
	t := tc.local(year, mo, d, h, mi, s, frac)
	if tc.EndNS != 0 && t > tc.EndNS+int64(24*time.Hour) {
		t = tc.local(year-1, mo, d, h, mi, s, frac)
	}
	return t, true
}

// mkTime builds a stamp with all its fields; ok is false when one is out of range.
func mkTime(y, mo, d, h, mi, s, frac int, tc *TimeCtx) (int64, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 {
		return 0, false
	}
	return tc.local(y, mo, d, h, mi, s, frac), true
}

// fraction reads ".123" or ",123" at b[i] as nanoseconds (up to 9 digits
// kept) and returns the index after it; no fraction is 0 at i.
func fraction(b []byte, i int) (int, int) {
	if i+1 >= len(b) || (b[i] != '.' && b[i] != ',') || !isDigit(b[i+1]) {
		return 0, i
	}
	i++
	frac, digits := 0, 0
	for i < len(b) && isDigit(b[i]) {
		if digits < 9 {
			frac = frac*10 + int(b[i]-'0')
			digits++
		}
		i++
	}
	for ; digits < 9; digits++ {
		frac *= 10
	}
	return frac, i
}

// century puts a two-digit year in 1970..2069.
func century(yy int) int {
	if yy < 70 {
		return 2000 + yy
	}
	return 1900 + yy
}

// yymmddTime reads Hadoop's "081109 203615".
func yymmddTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) < 13 || b[6] != ' ' {
		return 0, 0, false
	}
	v, ok := stampNums(b, span{0, 2}, span{2, 2}, span{4, 2}, span{7, 2}, span{9, 2}, span{11, 2})
	if !ok {
		return 0, 0, false
	}
	ns, ok := mkTime(century(v[0]), v[1], v[2], v[3], v[4], v[5], 0, tc)
	return ns, 13, ok
}

// yySlashTime reads Spark's "17/06/09 20:10:40".
func yySlashTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) < 17 || b[2] != '/' || b[5] != '/' || b[8] != ' ' || b[11] != ':' || b[14] != ':' {
		return 0, 0, false
	}
	v, ok := stampNums(b, span{0, 2}, span{3, 2}, span{6, 2}, span{9, 2}, span{12, 2}, span{15, 2})
	if !ok {
		return 0, 0, false
	}
	ns, ok := mkTime(century(v[0]), v[1], v[2], v[3], v[4], v[5], 0, tc)
	return ns, 17, ok
}

// compactTime reads HealthApp's "20171223-22:15:29:606" (yyyyMMdd-H:m:s:S):
// its writer pads the date but not the clock, so each clock field is one or
// two digits and the milliseconds one to three ("20171224-0:0:0:215",
// "20171223-22:15:2:606"); an unpadded millisecond count is milliseconds.
func compactTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) < 15 || b[8] != '-' {
		return 0, 0, false
	}
	v, ok := stampNums(b, span{0, 4}, span{4, 2}, span{6, 2})
	if !ok {
		return 0, 0, false
	}
	i := 9
	var clock [4]int
	for k := range clock {
		width := 2
		if k == 3 {
			width = 3
		}
		end := digitsEnd(b, i)
		if end == i || end-i > width {
			return 0, 0, false
		}
		clock[k], _ = num(b[i:], end-i)
		i = end
		if k < 3 {
			if i >= len(b) || b[i] != ':' {
				return 0, 0, false
			}
			i++
		}
	}
	if i < len(b) && isWordByte(b[i]) { // "…:6x6" is no stamp
		return 0, 0, false
	}
	ns, ok := mkTime(v[0], v[1], v[2], clock[0], clock[1], clock[2], clock[3]*1e6, tc)
	return ns, i, ok
}

// monthDayTime reads "10.30 16:49:06" (MM.dd HH:mm:ss, year inferred).
func monthDayTime(b []byte, tc *TimeCtx) (int64, bool) {
	if len(b) != 14 || b[2] != '.' || b[5] != ' ' || b[8] != ':' || b[11] != ':' {
		return 0, false
	}
	mo, ok1 := num(b, 2)
	d, ok2 := num(b[3:], 2)
	h, ok3 := num(b[6:], 2)
	mi, ok4 := num(b[9:], 2)
	s, ok5 := num(b[12:], 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	return tc.noYear(mo, d, h, mi, s, 0)
}

// monthAt returns the month (1-12) named by the three letters at b, or 0.
func monthAt(b []byte) int {
	if len(b) < 3 {
		return 0
	}
	for k, m := range months {
		if string(b[:3]) == m {
			return k + 1
		}
	}
	return 0
}

// ctimeTime reads Apache's "Sun Dec 04 04:47:44 2005", optionally with a
// fraction after the seconds ("10:42:29.902022").
func ctimeTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) < 24 || b[3] != ' ' || b[7] != ' ' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return 0, 0, false
	}
	mo := monthAt(b[4:])
	d, ok1 := num(b[8:], 2)
	if !ok1 && b[8] == ' ' && isDigit(b[9]) {
		d, ok1 = int(b[9]-'0'), true
	}
	h, ok2 := num(b[11:], 2)
	mi, ok3 := num(b[14:], 2)
	s, ok4 := num(b[17:], 2)
	frac, i := fraction(b, 19)
	if mo == 0 || !(ok1 && ok2 && ok3 && ok4) || i >= len(b) || b[i] != ' ' {
		return 0, 0, false
	}
	y, ok5 := num(b[i+1:], 4)
	if !ok5 {
		return 0, 0, false
	}
	ns, ok := mkTime(y, mo, d, h, mi, s, frac, tc)
	return ns, i + 5, ok
}

// clfTime reads the access-log stamp "10/Oct/2000:13:55:36 -0700".
func clfTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) < 20 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' {
		return 0, 0, false
	}
	d, ok1 := num(b, 2)
	mo := monthAt(b[3:])
	y, ok2 := num(b[7:], 4)
	h, ok3 := num(b[12:], 2)
	mi, ok4 := num(b[15:], 2)
	s, ok5 := num(b[18:], 2)
	if mo == 0 || !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, 0, false
	}
	if len(b) >= 26 && b[20] == ' ' && (b[21] == '+' || b[21] == '-') {
		oh, okh := num(b[22:], 2)
		om, okm := num(b[24:], 2)
		if okh && okm {
			ns, ok := mkTime(y, mo, d, h, mi, s, 0, &TimeCtx{Loc: time.UTC})
			off := int64((oh*60+om)*60) * 1e9
			if b[21] == '-' {
				off = -off
			}
			return ns - off, 26, ok
		}
	}
	ns, ok := mkTime(y, mo, d, h, mi, s, 0, tc)
	return ns, 20, ok
}

// leadingTime parses a timestamp at the start of b and returns it in Unix
// nanoseconds with the number of bytes it used. Accepted: RFC 3339 (with or
// without fraction and zone), "2006-01-02 15:04:05[.000|,000][Z|±07:00]" and
// syslog "Jan _2 15:04:05". Stamps without a zone are in tc.loc.
func leadingTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) >= 19 && isDigit(b[0]) {
		return isoTime(b, tc)
	}
	if len(b) >= 15 && b[0] >= 'A' && b[0] <= 'S' {
		return syslogTime(b, tc)
	}
	return 0, 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// span is one number of a fixed-width stamp: its offset and digit count.
type span struct{ at, n int }

// stampNums reads the numbers of a fixed-width stamp in order (at most 7);
// ok is false unless every one is all digits.
func stampNums(b []byte, spans ...span) (v [7]int, ok bool) {
	for i, sp := range spans {
		if sp.at > len(b) {
			return v, false
		}
		if v[i], ok = num(b[sp.at:], sp.n); !ok {
			return v, false
		}
	}
	return v, true
}

// num parses exactly n ASCII digits.
func num(b []byte, n int) (int, bool) {
	if len(b) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		c := b[i]
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func isoTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	if len(b) < 19 || (b[4] != '-' && b[4] != '/') || b[7] != b[4] || (b[10] != 'T' && b[10] != ' ' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return 0, 0, false
	}
	y, ok1 := num(b, 4)
	mo, ok2 := num(b[5:], 2)
	d, ok3 := num(b[8:], 2)
	h, ok4 := num(b[11:], 2)
	mi, ok5 := num(b[14:], 2)
	s, ok6 := num(b[17:], 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 {
		return 0, 0, false
	}
	frac, i := fraction(b, 19)
	// zone
	if i < len(b) && (b[i] == 'Z' || b[i] == 'z') {
		t := time.Date(y, time.Month(mo), d, h, mi, s, frac, time.UTC)
		return t.UnixNano(), i + 1, true
	}
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		if oh, ok := num(b[i+1:], 2); ok {
			j := i + 3
			om := 0
			if j < len(b) && b[j] == ':' {
				j++
			}
			if m, ok := num(b[j:], 2); ok {
				om = m
				j += 2
			} else if j != i+3 { // "+08:" without minutes
				return 0, 0, false
			}
			off := (oh*60 + om) * 60
			if b[i] == '-' {
				off = -off
			}
			t := time.Date(y, time.Month(mo), d, h, mi, s, frac, time.UTC)
			return t.UnixNano() - int64(off)*1e9, j, true
		}
	}
	return tc.local(y, mo, d, h, mi, s, frac), i, true
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func syslogTime(b []byte, tc *TimeCtx) (int64, int, bool) {
	// "Jan _2 15:04:05"
	if len(b) < 15 || b[3] != ' ' || b[6] != ' ' || b[9] != ':' || b[12] != ':' {
		return 0, 0, false
	}
	mo := monthAt(b)
	if mo == 0 {
		return 0, 0, false
	}
	var d int
	switch {
	case b[4] == ' ' && isDigit(b[5]):
		d = int(b[5] - '0')
	default:
		v, ok := num(b[4:], 2)
		if !ok {
			return 0, 0, false
		}
		d = v
	}
	h, ok1 := num(b[7:], 2)
	mi, ok2 := num(b[10:], 2)
	s, ok3 := num(b[13:], 2)
	if !(ok1 && ok2 && ok3) {
		return 0, 0, false
	}
	t, ok := tc.noYear(mo, d, h, mi, s, 0)
	return t, 15, ok
}

// valueTime parses a whole field value as a time: an ISO stamp or a numeric
// Unix epoch in seconds, milliseconds, microseconds or nanoseconds (told
// apart by magnitude), possibly with a fraction.
func valueTime(v []byte, tc *TimeCtx) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	if ns, n, ok := leadingTime(v, tc); ok && n == len(v) {
		return ns, true
	}
	if !isDigit(v[0]) {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		// whole numbers in integers: nanoseconds exceed a float's precision
		switch {
		case n <= 0:
			return 0, false
		case n < 1e11: // seconds
			return n * 1e9, true
		case n < 1e14: // milliseconds
			return n * 1e6, true
		case n < 1e17: // microseconds
			return n * 1e3, true
		default:
			return n, true
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	switch {
	case f < 1e11: // seconds
		return int64(f * 1e9), true
	case f < 1e14: // milliseconds
		return int64(f * 1e6), true
	case f < 1e17: // microseconds
		return int64(f * 1e3), true
	default:
		return int64(f), true
	}
}
