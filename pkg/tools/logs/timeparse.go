package logs

import (
	"strconv"
	"time"
)

// timeCtx is what a timestamp without its own zone or year needs: the
// source's zone and, for syslog stamps, the year the query window ends in.
type timeCtx struct {
	loc *time.Location
	// year and endNS let syslog "Jan _2 15:04:05" stamps pick a year: the
	// window's end year, or the year before when that would put the stamp
	// more than a day after the window's end.
	year  int
	endNS int64
	// custom is the source's own layout when its format is custom.
	custom *customLayout
}

// leadingTime parses a timestamp at the start of b and returns it in Unix
// nanoseconds with the number of bytes it used. Accepted: RFC 3339 (with or
// without fraction and zone), "2006-01-02 15:04:05[.000|,000][Z|±07:00]" and
// syslog "Jan _2 15:04:05". Stamps without a zone are in tc.loc.
func leadingTime(b []byte, tc *timeCtx) (int64, int, bool) {
	if len(b) >= 19 && isDigit(b[0]) {
		return isoTime(b, tc.loc)
	}
	if len(b) >= 15 && b[0] >= 'A' && b[0] <= 'S' {
		return syslogTime(b, tc)
	}
	return 0, 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

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

func isoTime(b []byte, loc *time.Location) (int64, int, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
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
	i := 19
	frac := 0
	if i < len(b) && (b[i] == '.' || b[i] == ',') && i+1 < len(b) && isDigit(b[i+1]) {
		i++
		digits := 0
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
	}
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
	t := time.Date(y, time.Month(mo), d, h, mi, s, frac, loc)
	return t.UnixNano(), i, true
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func syslogTime(b []byte, tc *timeCtx) (int64, int, bool) {
	// "Jan _2 15:04:05"
	if len(b) < 15 || b[3] != ' ' || b[6] != ' ' || b[9] != ':' || b[12] != ':' {
		return 0, 0, false
	}
	mo := 0
	for k, m := range months {
		if string(b[:3]) == m {
			mo = k + 1
			break
		}
	}
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
	if !(ok1 && ok2 && ok3) || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 {
		return 0, 0, false
	}
	year := tc.year
	if year == 0 {
		year = time.Now().Year()
	}
	t := time.Date(year, time.Month(mo), d, h, mi, s, 0, tc.loc).UnixNano()
	if tc.endNS != 0 && t > tc.endNS+int64(24*time.Hour) {
		t = time.Date(year-1, time.Month(mo), d, h, mi, s, 0, tc.loc).UnixNano()
	}
	return t, 15, true
}

// valueTime parses a whole field value as a time: an ISO stamp or a numeric
// Unix epoch in seconds, milliseconds, microseconds or nanoseconds (told
// apart by magnitude), possibly with a fraction.
func valueTime(v []byte, tc *timeCtx) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	if ns, n, ok := leadingTime(v, tc); ok && n == len(v) {
		return ns, true
	}
	if !isDigit(v[0]) {
		return 0, false
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
