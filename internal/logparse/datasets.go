package logparse

import (
	"bytes"
)

// Layouts of the public log benchmark data sets (LogHub: HDFS, Spark,
// HealthApp, Proxifier, Windows CBS, Thunderbird-style file-dated lines).

// parseHDFS reads "081109 203615 148 INFO dfs.DataNode$PacketResponder: msg".
func parseHDFS(line []byte, tc *TimeCtx, r *Record) LineKind {
	return stampTail(line, tc, r, yymmddTime)
}

// parseSpark reads "17/06/09 20:10:40 INFO executor.Backend: msg".
func parseSpark(line []byte, tc *TimeCtx, r *Record) LineKind {
	return stampTail(line, tc, r, yySlashTime)
}

// parseCompact reads "20171223-22:15:29:606|Step_LSC|30002312|msg": the
// component is the service, the number a pid field.
func parseCompact(line []byte, tc *TimeCtx, r *Record) LineKind {
	ts, n, ok := compactTime(line, tc)
	if !ok || n >= len(line) || line[n] != '|' {
		return LineCont
	}
	r.TS = ts
	rest := line[n+1:]
	if k := bytes.IndexByte(rest, '|'); k > 0 && k <= 64 {
		r.nameField("component", rest[:k])
		rest = rest[k+1:]
		if k := bytes.IndexByte(rest, '|'); k > 0 && digitsEnd(rest, 0) == k {
			r.Fields = append(r.Fields, KV{Key: []byte("pid"), Val: rest[:k]})
			rest = rest[k+1:]
		}
	}
	if j, lvl, _ := levelWord(rest, 0); lvl != "" {
		r.Level = lvl
		rest = rest[skipSeps(rest, j):]
	}
	r.Msg = trimEnd(rest)
	return LineTimed
}

// parseMonthDay reads "[10.30 16:49:06] chrome.exe - msg" (Proxifier): the
// program before " - " is the service; the year is inferred.
func parseMonthDay(line []byte, tc *TimeCtx, r *Record) LineKind {
	if len(line) < 16 || line[0] != '[' || line[15] != ']' {
		return LineCont
	}
	ts, ok := monthDayTime(line[1:15], tc)
	if !ok {
		return LineCont
	}
	r.TS = ts
	i := skipSpace(line, 16)
	if k := bytes.Index(line[i:], []byte(" - ")); k > 0 && k <= 64 && bytes.IndexByte(line[i:i+k], ' ') < 0 {
		r.nameField("program", line[i:i+k])
		i = skipSpace(line, i+k+3)
	}
	if j, lvl, _ := levelWord(line, i); lvl != "" {
		r.Level = lvl
		i = skipSeps(line, j)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// parseCBS reads Windows CBS: "2016-09-28 04:30:30, Info  CBS  msg": the
// level after the comma, the component (CBS, CSI) as the service.
func parseCBS(line []byte, tc *TimeCtx, r *Record) LineKind {
	ts, n, ok := isoTime(line, tc)
	if !ok || n+1 >= len(line) || line[n] != ',' || line[n+1] != ' ' {
		return LineCont
	}
	i := skipSpace(line, n+1)
	j, lvl, _ := levelWord(line, i)
	if lvl == "" {
		return LineCont
	}
	r.TS, r.Level = ts, lvl
	i = skipSpace(line, j)
	if e := token(line, i); e > i && e-i <= 16 && e < len(line) {
		r.nameField("component", line[i:e])
		i = skipSpace(line, e)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// parseFileDated reads lines that start with the name of the file they came
// from, itself holding a date ("nova-api.log.1.2017-05-16_13:53:08 2017-05-16
// 00:00:00.008 25746 INFO nova.api msg", OpenStack): the name becomes the
// field "file" and the rest is read as text.
func parseFileDated(line []byte, tc *TimeCtx, r *Record) LineKind {
	e := token(line, 0)
	if e == 0 || e >= len(line) || e > 256 || !containsDate(line[:e]) {
		return LineCont
	}
	if _, _, ok := isoTime(line, tc); ok {
		return LineCont // the line starts with its own stamp: plain text
	}
	rest := line[skipSpace(line, e):]
	if parseText(rest, tc, r) != LineTimed {
		return LineCont
	}
	r.Fields = append(r.Fields, KV{Key: []byte("file"), Val: line[:e]})
	return LineTimed
}

// containsDate reports whether b holds "yyyy-mm-dd" somewhere.
func containsDate(b []byte) bool {
	for i := 0; i+10 <= len(b); i++ {
		if b[i+4] == '-' && b[i+7] == '-' && isDigit(b[i]) && isDigit(b[i+3]) && isDigit(b[i+5]) && isDigit(b[i+6]) && isDigit(b[i+8]) && isDigit(b[i+9]) {
			return true
		}
	}
	return false
}
