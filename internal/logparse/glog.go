package logparse

import (
	"bytes"
)

// Layouts whose level is one letter before the stamp or beside it: glog
// and klog, Android logcat.

// parseGlog reads glog/klog: "E0102 15:04:05.000000 1234 file.go:12] msg"
// (level letter I, W, E or F; the year is inferred; thread id and source
// location become fields).
func parseGlog(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 22 || line[5] != ' ' || line[8] != ':' || line[11] != ':' {
		return LineCont
	}
	lvl := glogLevel(line[0])
	if lvl == "" {
		return LineCont
	}
	v, ok := stampNums(line, span{1, 2}, span{3, 2}, span{6, 2}, span{9, 2}, span{12, 2})
	if !ok {
		return LineCont
	}
	mo, d, h, mi, s := v[0], v[1], v[2], v[3], v[4]
	i := 14
	frac, i := fraction(line, i)
	ts, ok := tc.noYear(mo, d, h, mi, s, frac)
	if !ok || !afterStamp(line, i) {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	i = skipSpace(line, i)
	if e := digitsEnd(line, i); e > i {
		r.Fields = append(r.Fields, KV{Key: []byte("thread"), Val: line[i:e]})
		i = skipSpace(line, e)
	}
	if k := bytes.IndexByte(line[i:], ']'); k > 0 && k <= 128 && bytes.IndexByte(line[i:i+k], ' ') < 0 {
		r.Fields = append(r.Fields, KV{Key: []byte("source"), Val: line[i : i+k]})
		i = skipSpace(line, i+k+1)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// glogLevel maps glog's level letters (I W E F) joined to its stamp.
func glogLevel(c byte) string {
	switch c {
	case 'I':
		return "INFO"
	case 'W':
		return "WARN"
	case 'E', 'F':
		return "ERROR"
	}
	return ""
}

// logcatLevel maps Android's priority letters (V D I W E F, A assert).
func logcatLevel(c byte) string {
	switch c {
	case 'V', 'D':
		return "DEBUG"
	case 'I':
		return "INFO"
	case 'W':
		return "WARN"
	case 'E', 'F', 'A':
		return "ERROR"
	}
	return ""
}

// parseLogcat reads Android logcat threadtime, "03-17 16:13:38.811  1702
// 2395 D Tag: msg" (also with a year, logcat -v year): the tag is the
// service, pid and tid are fields.
func parseLogcat(line []byte, tc *TimeCtx, r *Record) LineKind {
	var ts int64
	var i int
	if len(line) >= 10 && line[4] == '-' && line[7] == '-' {
		t, n, ok := isoTime(line, tc)
		if !ok {
			return LineCont
		}
		ts, i = t, n
	} else {
		if len(line) < 18 || line[2] != '-' || line[5] != ' ' || line[8] != ':' || line[11] != ':' {
			return LineCont
		}
		v, ok := stampNums(line, span{0, 2}, span{3, 2}, span{6, 2}, span{9, 2}, span{12, 2})
		if !ok {
			return LineCont
		}
		mo, d, h, mi, s := v[0], v[1], v[2], v[3], v[4]
		var frac int
		frac, i = fraction(line, 14)
		t, ok := tc.noYear(mo, d, h, mi, s, frac)
		if !ok {
			return LineCont
		}
		ts = t
	}
	// pid, tid, priority letter, "Tag: msg"
	p := skipSpace(line, i)
	pe := digitsEnd(line, p)
	t := skipSpace(line, pe)
	te := digitsEnd(line, t)
	l := skipSpace(line, te)
	if pe == p || te == t || l+2 > len(line) || line[l+1] != ' ' {
		return LineCont
	}
	lvl := logcatLevel(line[l])
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: line[p:pe]}, KV{Key: []byte("tid"), Val: line[t:te]})
	i = l + 2
	if k := bytes.Index(line[i:], []byte(": ")); k >= 0 && k <= 64 {
		r.nameField("tag", trimEnd(line[i:i+k]))
		i += k + 2
	} else if bytes.HasSuffix(line, []byte(":")) {
		r.nameField("tag", trimEnd(line[i:len(line)-1]))
		i = len(line)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}
