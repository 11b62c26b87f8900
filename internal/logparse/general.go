package logparse

import (
	"bytes"
	"time"
)

// The general reader: the layout that catches the text formats no
// hand-written layout lists. It finds a stamp anywhere in a line's head
// (after a bracketed pid, after the level, inside brackets) in the common
// spellings, and a level word near it. Detection runs it like any layout
// (it is the last candidate, so a listed layout that reads as many lines
// wins) and, when it is chosen, it learns from the sample which column
// holds the stamp (its spelling and how many words stand before it) and
// which holds the level (the word slot around the stamp, or the line after
// the stamp): the file is then read by that column only, so a stamp inside
// a message or a stack frame never starts an entry and a level-like word in
// prose is never the level.

// generalHead is how much of a line's head is searched for a stamp.
const generalHead = 160

// maxLevelSlot bounds how many words around the stamp may hold the level.
const maxLevelSlot = 6

// stampKind is a spelling of a stamp the general reader knows.
type stampKind uint8

const (
	stampNone    stampKind = iota
	stampISO               // 2026-11-20 09:12:03,123 (also / or . between date parts, T, blank-padded hour)
	stampDayMon            // 20-Nov-2026 09:12:03.123, 20/Nov/2026:09:12:03 +0000, 20 Nov 2026 09:12:03
	stampMonDay            // Nov 20, 2026 9:12:03 AM, Nov 20 09:12:03
	stampCtime             // Fri Nov 20 09:12:03 2026
	stampYYMMDD            // 261120 09:12:03, 261120  9:12:03
	stampYYSlash           // 26/11/20 09:12:03
	stampMD                // 11-20|09:12:03.123, 11-20 09:12:03 (year-less)
	stampGlog              // E1120 09:12:03.123456, E261120 09:12:03.123456 (the letter is the level)
	stampEpoch             // 1763629923.123 (Unix seconds, 2000-2100)
)

// clockAt reads "H:MM:SS" or "HH:MM:SS", a fraction, and a 12-hour
// " AM"/" PM" after it, at b[i].
func clockAt(b []byte, i int) (h, mi, s, frac, end int, ok bool) {
	e := digitsEnd(b, i)
	if e-i < 1 || e-i > 2 || e+6 > len(b) || b[e] != ':' || b[e+3] != ':' {
		return 0, 0, 0, 0, 0, false
	}
	h, _ = num(b[i:], e-i)
	var ok1, ok2 bool
	mi, ok1 = num(b[e+1:], 2)
	s, ok2 = num(b[e+4:], 2)
	if !ok1 || !ok2 || h > 23 || mi > 59 || s > 60 {
		return 0, 0, 0, 0, 0, false
	}
	frac, end = fraction(b, e+6)
	if end < len(b) && isDigit(b[end]) {
		return 0, 0, 0, 0, 0, false
	}
	// a 12-hour clock: "9:12:03 AM" (JUL's SimpleFormatter, .NET)
	j := end
	if j < len(b) && b[j] == ' ' {
		j++
	}
	if j+1 < len(b) && (b[j] == 'A' || b[j] == 'P') && b[j+1] == 'M' && (j+2 == len(b) || !isWordByte(b[j+2])) && h >= 1 && h <= 12 {
		if b[j] == 'P' && h != 12 {
			h += 12
		} else if b[j] == 'A' && h == 12 {
			h = 0
		}
		end = j + 2
	}
	return h, mi, s, frac, end, true
}

// explicitZone reads a zone written right after a stamp ("Z", "+00:00",
// "+0000") or after a blank (zoneAfter: " +0000", " UTC"); off is the
// offset to subtract from the stamp read in UTC, n the bytes used, known
// whether the zone fixes the instant.
func explicitZone(b []byte, i int) (off int64, n int, known bool) {
	if i < len(b) && (b[i] == 'Z' || b[i] == 'z') && (i+1 == len(b) || !isWordByte(b[i+1])) {
		return 0, 1, true
	}
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		oh, ok := num(b[i+1:], 2)
		if !ok {
			return 0, 0, false
		}
		j, om := i+3, 0
		if j < len(b) && b[j] == ':' {
			j++
		}
		if m, ok := num(b[j:], 2); ok {
			om, j = m, j+2
		}
		if j < len(b) && isDigit(b[j]) {
			return 0, 0, false
		}
		off = int64((oh*60+om)*60) * 1e9
		if b[i] == '-' {
			off = -off
		}
		return off, j - i, true
	}
	off, utc, zn := zoneAfter(b, i)
	return off, zn, utc
}

// placed turns the fields of a stamp into Unix nanoseconds: with an
// explicit zone after it (at b[i]) in that zone, else in the source's.
func placed(b []byte, i, y, mo, d, h, mi, s, frac int, tc *TimeCtx) (int64, int, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return 0, 0, false
	}
	if off, n, known := explicitZone(b, i); known {
		tc.Fold = Fold{}
		return time.Date(y, time.Month(mo), d, h, mi, s, frac, time.UTC).UnixNano() - off, i + n, true
	} else if n > 0 && normLevel(bytes.TrimSpace(b[i:i+n])) == "" {
		i += n // an abbreviation ("CET", never "INFO"): the source's zone stands for it
	}
	ns, ok := mkTime(y, mo, d, h, mi, s, frac, tc)
	return ns, i, ok
}

// isoAny reads "2026-11-20 09:12:03" with '-', '/' or '.' between the date
// parts, 'T' or blanks before a clock whose hour may be blank-padded.
func isoAny(b []byte, i int, tc *TimeCtx) (int64, int, bool) {
	if i+16 > len(b) || digitsEnd(b, i) != i+4 {
		return 0, 0, false
	}
	sep := b[i+4]
	if (sep != '-' && sep != '/' && sep != '.') || b[i+7] != sep {
		return 0, 0, false
	}
	v, ok := stampNums(b[i:], span{0, 4}, span{5, 2}, span{8, 2})
	if !ok {
		return 0, 0, false
	}
	j := i + 10
	switch {
	case j < len(b) && (b[j] == 'T' || b[j] == 't'):
		j++
	case j < len(b) && b[j] == ' ':
		j++
		if j < len(b) && b[j] == ' ' { // "2026-11-20  9:12:03" (MariaDB)
			j++
		}
	default:
		return 0, 0, false
	}
	h, mi, s, frac, end, ok := clockAt(b, j)
	if !ok {
		return 0, 0, false
	}
	return placed(b, end, v[0], v[1], v[2], h, mi, s, frac, tc)
}

// dayMon reads "20-Nov-2026 09:12:03.123", "20/Nov/2026:09:12:03 +0000"
// and "20 Nov 2026 09:12:03".
func dayMon(b []byte, i int, tc *TimeCtx) (int64, int, bool) {
	e := digitsEnd(b, i)
	if e-i < 1 || e-i > 2 || e+12 > len(b) {
		return 0, 0, false
	}
	sep := b[e]
	if (sep != '-' && sep != '/' && sep != ' ') || b[e+4] != sep {
		return 0, 0, false
	}
	d, _ := num(b[i:], e-i)
	mo := monthAt(b[e+1:])
	y, ok := num(b[e+5:], 4)
	j := e + 9
	if mo == 0 || !ok || j >= len(b) || (b[j] != ' ' && b[j] != ':') {
		return 0, 0, false
	}
	h, mi, s, frac, end, ok := clockAt(b, j+1)
	if !ok {
		return 0, 0, false
	}
	return placed(b, end, y, mo, d, h, mi, s, frac, tc)
}

// monDay reads "Nov 20, 2026 9:12:03 AM", "Nov 20 2026 09:12:03" and the
// year-less "Nov 20 09:12:03" / "Nov  2 09:12:03".
func monDay(b []byte, i int, tc *TimeCtx) (int64, int, bool) {
	if i+14 > len(b) || b[i+3] != ' ' {
		return 0, 0, false
	}
	mo := monthAt(b[i:])
	if mo == 0 {
		return 0, 0, false
	}
	j := i + 4
	if b[j] == ' ' {
		j++
	}
	e := digitsEnd(b, j)
	if e-j < 1 || e-j > 2 {
		return 0, 0, false
	}
	d, _ := num(b[j:], e-j)
	j = e
	if j < len(b) && b[j] == ',' {
		j++
	}
	if j >= len(b) || b[j] != ' ' {
		return 0, 0, false
	}
	j++
	year := 0
	if y, ok := num(b[j:], 4); ok && j+4 < len(b) && b[j+4] == ' ' {
		year, j = y, j+5
	}
	h, mi, s, frac, end, ok := clockAt(b, j)
	if !ok {
		return 0, 0, false
	}
	if year == 0 {
		ns, ok := tc.noYear(mo, d, h, mi, s, frac)
		return ns, end, ok
	}
	return placed(b, end, year, mo, d, h, mi, s, frac, tc)
}

// yymmddClock reads "261120 09:12:03" and "261120  9:12:03" (Tornado,
// MySQL 5.5).
func yymmddClock(b []byte, i int, tc *TimeCtx) (int64, int, bool) {
	if digitsEnd(b, i) != i+6 || i+14 > len(b) || b[i+6] != ' ' {
		return 0, 0, false
	}
	v, _ := stampNums(b[i:], span{0, 2}, span{2, 2}, span{4, 2})
	j := i + 7
	if b[j] == ' ' {
		j++
	}
	h, mi, s, frac, end, ok := clockAt(b, j)
	if !ok {
		return 0, 0, false
	}
	return placed(b, end, century(v[0]), v[1], v[2], h, mi, s, frac, tc)
}

// monthDayClock reads the year-less "11-20|09:12:03.123" (go-ethereum) and
// "11-20 09:12:03.123".
func monthDayClock(b []byte, i int, tc *TimeCtx) (int64, int, bool) {
	if i+14 > len(b) || digitsEnd(b, i) != i+2 || b[i+2] != '-' || digitsEnd(b, i+3) != i+5 || (b[i+5] != '|' && b[i+5] != ' ') {
		return 0, 0, false
	}
	v, _ := stampNums(b[i:], span{0, 2}, span{3, 2})
	h, mi, s, frac, end, ok := clockAt(b, i+6)
	if !ok || h > 23 {
		return 0, 0, false
	}
	ns, ok := tc.noYear(v[0], v[1], h, mi, s, frac)
	return ns, end, ok
}

// glogAny reads a glog-style head, the level letter joined to the date:
// "E1120 09:12:03.123456" (klog) and "E261120 09:12:03.123456"
// (CockroachDB).
func glogAny(b []byte, i int, tc *TimeCtx) (int64, int, string, bool) {
	if i+15 > len(b) {
		return 0, 0, "", false
	}
	lvl := glogLevel(b[i])
	if lvl == "" {
		return 0, 0, "", false
	}
	e := digitsEnd(b, i+1)
	if e >= len(b) || b[e] != ' ' {
		return 0, 0, "", false
	}
	h, mi, s, frac, end, ok := clockAt(b, e+1)
	if !ok {
		return 0, 0, "", false
	}
	switch e - i - 1 {
	case 4:
		v, _ := stampNums(b[i+1:], span{0, 2}, span{2, 2})
		ns, ok := tc.noYear(v[0], v[1], h, mi, s, frac)
		return ns, end, lvl, ok
	case 6:
		v, _ := stampNums(b[i+1:], span{0, 2}, span{2, 2}, span{4, 2})
		ns, n, ok := placed(b, end, century(v[0]), v[1], v[2], h, mi, s, frac, tc)
		return ns, n, lvl, ok
	}
	return 0, 0, "", false
}

// epochAt reads Unix seconds with an optional fraction ("1763629923.123",
// squid, unbound): ten digits of a time between 2000 and 2100, ended by a
// blank, ']', ':' or ','.
func epochAt(b []byte, i int) (int64, int, bool) {
	e := digitsEnd(b, i)
	if e-i != 10 {
		return 0, 0, false
	}
	n, _ := num(b[i:], 10)
	if n < 946684800 || n > 4102444800 {
		return 0, 0, false
	}
	frac, end := 0, e
	if e+1 < len(b) && b[e] == '.' && isDigit(b[e+1]) {
		frac, end = fraction(b, e)
	}
	if end < len(b) && b[end] != ' ' && b[end] != ']' && b[end] != ':' && b[end] != ',' && b[end] != '\t' {
		return 0, 0, false
	}
	return int64(n)*1e9 + int64(frac), end, true
}

// stampAt reads a stamp of any known spelling starting at b[i] (want, when
// not stampNone, only that spelling); lvl is the level a glog-style stamp
// carries in its letter.
func stampAt(b []byte, i int, want stampKind, tc *TimeCtx) (ns int64, end int, kind stampKind, lvl string, ok bool) {
	c := b[i]
	try := func(k stampKind) bool { return want == stampNone || want == k }
	switch {
	case isDigit(c):
		if try(stampISO) {
			if ns, end, ok = isoAny(b, i, tc); ok {
				return ns, end, stampISO, "", true
			}
		}
		if try(stampDayMon) {
			if ns, end, ok = dayMon(b, i, tc); ok {
				return ns, end, stampDayMon, "", true
			}
		}
		if try(stampYYMMDD) {
			if ns, end, ok = yymmddClock(b, i, tc); ok {
				return ns, end, stampYYMMDD, "", true
			}
		}
		if try(stampYYSlash) {
			if ns, n, ok := yySlashTime(b[i:], tc); ok && (i+n == len(b) || !isDigit(b[i+n])) {
				return ns, i + n, stampYYSlash, "", true
			}
		}
		if try(stampMD) {
			if ns, end, ok = monthDayClock(b, i, tc); ok {
				return ns, end, stampMD, "", true
			}
		}
		if try(stampEpoch) {
			if ns, end, ok = epochAt(b, i); ok {
				return ns, end, stampEpoch, "", true
			}
		}
	case c >= 'A' && c <= 'Z':
		if try(stampMonDay) {
			if ns, end, ok = monDay(b, i, tc); ok {
				return ns, end, stampMonDay, "", true
			}
		}
		if try(stampCtime) {
			if ns, n, ok := ctimeTime(b[i:], tc); ok {
				return ns, i + n, stampCtime, "", true
			}
		}
		if try(stampGlog) {
			if ns, end, lvl, ok = glogAny(b, i, tc); ok {
				return ns, end, stampGlog, lvl, true
			}
		}
	}
	return 0, 0, stampNone, "", false
}

// stampStart reports whether a stamp may start at b[i]: at the line's
// start or after a blank or an opening bracket, quote, '|' or '='.
func stampStart(b []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch b[i-1] {
	case ' ', '\t', '[', '(', '<', '{', '|', '=', '"', ',':
		return true
	}
	return false
}

// findStamp returns the first stamp of spelling want (any, for stampNone)
// in the head of line whose start has words words before it (any count,
// for words < 0).
func findStamp(line []byte, want stampKind, words int, tc *TimeCtx) (ns int64, start, end int, kind stampKind, lvl string, ok bool) {
	head := min(len(line), generalHead)
	for i := 0; i < head; i++ {
		c := line[i]
		if !(isDigit(c) || c >= 'A' && c <= 'Z') || !stampStart(line, i) {
			continue
		}
		if words >= 0 && countWords(line[:i]) != words {
			continue
		}
		tc.Fold = Fold{}
		if ns, end, kind, lvl, ok = stampAt(line, i, want, tc); ok {
			return ns, i, end, kind, lvl, true
		}
	}
	return 0, 0, 0, stampNone, "", false
}

// nextToken returns the token of b at or after i: a bracket group "[…]"
// (up to 64 bytes, blanks allowed: a thread name), or a run of bytes up to
// a blank or the next '[' ("][1][info][main]" is three tokens); stray
// closing brackets are skipped.
func nextToken(b []byte, i int) (start, end int) {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == ']') {
		i++
	}
	start = i
	if i < len(b) && b[i] == '[' {
		if k := bytes.IndexByte(b[i:min(len(b), i+64)], ']'); k > 0 {
			return start, i + k + 1
		}
		i++
	}
	for i < len(b) && b[i] != ' ' && b[i] != '\t' && b[i] != '[' {
		i++
	}
	return start, i
}

// hasWord reports whether a token holds a letter or digit.
func hasWord(t []byte) bool {
	for _, c := range t {
		if isWordByte(c) {
			return true
		}
	}
	return false
}

// countWords counts the tokens with a letter or digit in b.
func countWords(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		s, e := nextToken(b, i)
		if e == s {
			break
		}
		if hasWord(b[s:e]) {
			n++
		}
		i = e
	}
	return n
}

// wordsAround returns up to maxLevelSlot word tokens before a stamp
// (nearest first) and after it.
func wordsAround(line []byte, start, end int) (before, after [][]byte) {
	var all [][]byte
	for i := 0; i < start; {
		s, e := nextToken(line[:start], i)
		if e == s {
			break
		}
		if hasWord(line[s:e]) {
			all = append(all, line[s:e])
		}
		i = e
	}
	for k := len(all) - 1; k >= 0 && len(before) < maxLevelSlot; k-- {
		before = append(before, all[k])
	}
	for i := end; i < len(line) && len(after) < maxLevelSlot; {
		s, e := nextToken(line, i)
		if e == s {
			break
		}
		if hasWord(line[s:e]) {
			after = append(after, line[s:e])
		}
		i = e
	}
	return before, after
}

// tokenLevel reads a level from one token: ERROR, [ERROR], [INFO    ],
// [ERR], <Error>, ERROR:, :WARN:, ERROR/MainProcess, level=error, [E,
// channel.ERROR: (Monolog). strict (before a file's level column is
// learned) takes a lower-case or one-letter word only when it is decorated
// by brackets or a colon, or stands next to the stamp (next).
func tokenLevel(t []byte, strict, next bool) string {
	decorated := false
	if n := len(t); n > 2 && t[0] == '[' && t[n-1] == ']' {
		t, decorated = bytes.TrimSpace(t[1:n-1]), true
	}
	for len(t) > 0 && (t[0] == '[' || t[0] == ']' || t[0] == '<' || t[0] == '(' || t[0] == ':' || t[0] == '|' || t[0] == '{') {
		t, decorated = t[1:], true
	}
	if n := len(t); n > 2 && t[n-1] == ':' {
		// "production.ERROR:": the level is the last dotted part
		if k := bytes.LastIndexByte(t[:n-1], '.'); k > 0 {
			t = t[k+1:]
		}
	}
	w := 0
	for w < len(t) && isWordByte(t[w]) {
		w++
	}
	word := t[:w]
	if w == 0 {
		return ""
	}
	if w < len(t) && t[w] == '=' {
		switch string(bytes.ToLower(word)) {
		case "level", "lvl", "severity", "loglevel":
			return normLevel(bytes.Trim(t[w+1:], `"',`))
		}
		return ""
	}
	if w < len(t) {
		switch t[w] {
		case ']', '>', ')', ':', '/', '|', ',':
			decorated = true
		default:
			return ""
		}
	}
	lvl := normLevel(word)
	if lvl == "" || !strict {
		return lvl
	}
	lower := word[0] >= 'a' && word[0] <= 'z'
	if (len(word) < 3 || lower) && !decorated && !next {
		return ""
	}
	return lvl
}

// tokenShape is how a level token is decorated: its opening bracket, if
// any, and whether a colon ends it; the learned level column accepts a
// level a few words further only in the same shape (ClickHouse's
// "<Error>" after a query id, Sidekiq's "INFO:" after a job's context).
func tokenShape(t []byte) (open byte, colon bool) {
	if len(t) > 0 && (t[0] == '[' || t[0] == '<' || t[0] == '(') {
		open = t[0]
	}
	return open, len(t) > 0 && t[len(t)-1] == ':'
}

// levelSlot encodes where a level stands: 1..6 the word after the stamp,
// -1..-6 the word before it, slotStamp in the stamp's own letter,
// slotNext on the line after the stamp, slotNone nowhere.
const (
	slotNone  = 0
	slotStamp = 100
	slotNext  = 101
)

// nearestLevel finds the level word closest to the stamp (after before
// before), strictly read: its slot and level.
func nearestLevel(before, after [][]byte) (int, string) {
	for k := 0; k < maxLevelSlot; k++ {
		if k < len(after) {
			if l := tokenLevel(after[k], true, k == 0); l != "" {
				return k + 1, l
			}
		}
		if k < len(before) {
			if l := tokenLevel(before[k], true, k == 0); l != "" {
				return -(k + 1), l
			}
		}
	}
	return slotNone, ""
}

// nextLineLevel reads JUL's second line, "SEVERE: msg".
func nextLineLevel(line []byte) string {
	line = bytes.TrimLeft(line, " \t")
	k := bytes.IndexByte(line, ':')
	if k < 3 || k > maxLevelWord {
		return ""
	}
	for _, c := range line[:k] {
		if c < 'A' || c > 'Z' {
			return ""
		}
	}
	return normLevel(line[:k])
}

// general is a file's learned columns, or none (the detection-time reader).
type general struct {
	learned bool
	kind    stampKind
	words   int // word tokens before the stamp
	slot    int
	// open and colon are the shape of the level tokens learned (tokenShape)
	open  byte
	colon bool
}

func (g *general) parse(line []byte, tc *TimeCtx, r *Record) LineKind {
	want, words := stampNone, -1
	if g.learned {
		want, words = g.kind, g.words
	}
	ns, start, end, _, lvl, ok := findStamp(line, want, words, tc)
	if !ok {
		return LineCont
	}
	r.TS = ns
	before, after := wordsAround(line, start, end)
	msgFrom := end
	switch {
	case lvl != "":
		r.Level = lvl
	case !g.learned:
		var slot int
		slot, r.Level = nearestLevel(before, after)
		if slot > 0 {
			msgFrom = tokenEnd(line, after[slot-1])
		}
	case g.slot > 0 && g.slot <= len(after):
		for k := g.slot - 1; k < len(after) && r.Level == ""; k++ {
			if k == g.slot-1 {
				r.Level = tokenLevel(after[k], false, true)
			} else if o, c := tokenShape(after[k]); o == g.open && c == g.colon && (o != 0 || c) {
				// the same shape a few words further
				r.Level = tokenLevel(after[k], true, false)
			}
			if r.Level != "" {
				msgFrom = tokenEnd(line, after[k])
			}
		}
	case g.slot < 0 && -g.slot <= len(before):
		r.Level = tokenLevel(before[-g.slot-1], false, true)
	}
	r.Msg = trimEnd(line[skipSeps(line, skipClose(line, msgFrom)):])
	return LineTimed
}

// tokenEnd is the index in line after token t, a subslice of line.
func tokenEnd(line, t []byte) int {
	return cap(line) - cap(t) + len(t)
}

// skipClose skips the closing brackets and separators after a stamp or a
// level ("] ", ": ", "> ").
func skipClose(b []byte, i int) int {
	for i < len(b) && (b[i] == ']' || b[i] == '>' || b[i] == ')' || b[i] == ' ' || b[i] == ':' || b[i] == '-' || b[i] == '|') {
		i++
	}
	return i
}

// learnGeneral learns a file's columns from the detection sample: the
// spelling and word position of the stamp most lines have, then the slot
// that most of those lines hold a level in (the stamp's letter, a word
// around the stamp, or the line after it).
func learnGeneral(sample [][]byte, tc *TimeCtx) *Layout {
	type col struct {
		kind  stampKind
		words int
	}
	cols := map[col]int{}
	for _, line := range sample {
		if _, start, _, kind, _, ok := findStamp(line, stampNone, -1, tc); ok {
			cols[col{kind, countWords(line[:start])}]++
		}
	}
	var best col
	bestN := 0
	for c, n := range cols {
		if n > bestN || n == bestN && (c.kind < best.kind || c.kind == best.kind && c.words < best.words) {
			best, bestN = c, n
		}
	}
	g := &general{learned: true, kind: best.kind, words: best.words}
	slots := map[int]int{}
	type shapeKey struct {
		slot  int
		open  byte
		colon bool
	}
	shapes := map[shapeKey]int{}
	for k, line := range sample {
		_, start, end, _, lvl, ok := findStamp(line, best.kind, best.words, tc)
		if !ok {
			continue
		}
		if lvl != "" {
			slots[slotStamp]++
			continue
		}
		before, after := wordsAround(line, start, end)
		if s, _ := nearestLevel(before, after); s != slotNone {
			slots[s]++
			if s > 0 {
				o, c := tokenShape(after[s-1])
				shapes[shapeKey{s, o, c}]++
			}
			continue
		}
		if k+1 < len(sample) && nextLineLevel(sample[k+1]) != "" {
			slots[slotNext]++
		}
	}
	bestS := 0
	for s, n := range slots {
		if n > bestS || n == bestS && abs(s) < abs(g.slot) {
			g.slot, bestS = s, n
		}
	}
	shapeN := 0
	for k, n := range shapes {
		if k.slot == g.slot && n > shapeN {
			g.open, g.colon, shapeN = k.open, k.colon, n
		}
	}
	l := &Layout{Name: LayoutGeneral, Parse: g.parse}
	if g.slot == slotNext {
		l.LevelNext = nextLineLevel
	}
	return l
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// newGeneralLayout is the general reader as detection runs it: any stamp,
// the nearest level; DetectLayout has it learn a file's columns when chosen.
func newGeneralLayout() *Layout {
	g := &general{}
	return &Layout{Name: LayoutGeneral, Parse: g.parse, Learn: learnGeneral}
}
