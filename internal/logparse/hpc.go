package logparse

import (
	"bytes"
)

// Supercomputer logs: BlueGene RAS lines and the LANL HPC layout.

// parseRAS reads supercomputer RAS logs, which put an alert tag, a Unix
// epoch, a date and the node before the event's own stamp: BlueGene/L
// "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872
// R02-M1-N0-C:J12-U11 RAS KERNEL INFO msg" (component is the service, the
// level word the level) and Thunderbird "- 1131566461 2005.11.09 dn228 Nov
// 9 12:01:01 dn228/dn228 crond[2915]: msg" (the program is the service).
// The epoch is the time. An alert tag other than "-" is kept as the field
// "alert" and, when the line names no level, makes it ERROR: the tag marks
// the line as an alert.
func parseRAS(line []byte, tc *TimeCtx, r *Record) LineKind {
	te := token(line, 0)
	if te == 0 || te > 32 || te >= len(line) {
		return LineCont
	}
	tag := line[:te]
	es := skipSpace(line, te)
	ee := digitsEnd(line, es)
	if ee-es != 10 || ee >= len(line) || line[ee] != ' ' {
		return LineCont
	}
	ds := ee + 1
	if len(line) < ds+11 || line[ds+4] != '.' || line[ds+7] != '.' || line[ds+10] != ' ' {
		return LineCont
	}
	sec, _ := num(line[es:], 10)
	ns := int64(sec) * 1e9
	ns0 := skipSpace(line, ds+11)
	ne := token(line, ns0)
	if ne == ns0 || ne >= len(line) {
		return LineCont
	}
	r.TS = ns
	r.Fields = append(r.Fields, KV{Key: []byte("node"), Val: line[ns0:ne]})
	if string(tag) != "-" {
		r.Fields = append(r.Fields, KV{Key: []byte("alert"), Val: tag})
	}
	i := skipSpace(line, ne)
	if n, ok := rasSyslogTime(line[i:], tc); ok { // Thunderbird
		i = skipSpace(line, i+n)
		he := token(line, i)
		if j, ok := syslogTag(line, skipSpace(line, he), r); ok {
			i = j
		} else {
			i = skipSpace(line, he)
		}
		if e, lvl, _ := levelWord(line, i); lvl != "" {
			r.Level = lvl
			i = skipSeps(line, e)
		}
	} else { // BlueGene/L: stamp node type component level
		var cols [4][]byte
		for c := range cols {
			e := token(line, i)
			cols[c] = line[i:e]
			i = skipSpace(line, e)
		}
		r.Fields = append(r.Fields, KV{Key: []byte("type"), Val: cols[2]})
		r.nameField("component", cols[3])
		if _, lvl, _ := levelWord(line, i); lvl != "" {
			r.Level = lvl
			i = skipSpace(line, token(line, i))
		}
	}
	if r.Level == "" && string(tag) != "-" {
		r.Level = "ERROR"
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// rasSyslogTime is the length of the syslog stamp a Thunderbird line
// carries after its node: "Nov  9 12:01:01", or Loghub's "Nov 9 12:01:01"
// with the day's padding squeezed out (its samples write every day so).
func rasSyslogTime(b []byte, tc *TimeCtx) (int, bool) {
	if _, n, ok := syslogTime(b, tc); ok {
		return n, true
	}
	if len(b) < 14 || b[3] != ' ' || !isDigit(b[4]) || b[5] != ' ' {
		return 0, false
	}
	var pad [15]byte
	copy(pad[:], b[:4])
	pad[4] = ' '
	copy(pad[5:], b[4:14])
	if _, _, ok := syslogTime(pad[:], tc); ok {
		return 14, true
	}
	return 0, false
}

// parseHPC reads the LANL HPC layout "134681 node-246 unix.hw
// state_change.unavailable 1077804742 1 msg": sequence number, node,
// component (the service), state, Unix epoch (the time), flag, message.
func parseHPC(line []byte, tc *TimeCtx, r *Record) LineKind {
	var cols [6][]byte
	i := 0
	for c := range cols {
		e := token(line, i)
		if e == i || e >= len(line) {
			return LineCont
		}
		cols[c] = line[i:e]
		i = skipSpace(line, e)
	}
	flag := bytes.TrimPrefix(cols[5], []byte("-"))
	if digitsEnd(cols[0], 0) != len(cols[0]) || len(cols[4]) != 10 || digitsEnd(cols[4], 0) != 10 || len(flag) == 0 || digitsEnd(flag, 0) != len(flag) {
		return LineCont
	}
	sec, _ := num(cols[4], 10)
	r.TS = int64(sec) * 1e9
	r.nameField("component", cols[2])
	r.Fields = append(r.Fields, KV{Key: []byte("node"), Val: cols[1]}, KV{Key: []byte("state"), Val: cols[3]}, KV{Key: []byte("flag"), Val: cols[5]})
	if e, lvl, _ := levelWord(line, i); lvl != "" {
		r.Level = lvl
		i = skipSeps(line, e)
	}
	r.Msg = trimEnd(line[i:])
	return LineTimed
}

// hpcShape reports whether a line starts like an entry of the HPC layout
// (a sequence number, then a 10-digit epoch as the fifth column), so a line
// of that shape the layout cannot read is an unplaced entry, never text
// glued to the entry before it.
func hpcShape(line []byte) bool {
	i, c := 0, 0
	for ; c < 5; c++ {
		e := token(line, i)
		if e == i {
			return false
		}
		if c == 0 && digitsEnd(line, i) != e {
			return false
		}
		if c == 4 {
			return e-i == 10 && digitsEnd(line, i) == e
		}
		i = skipSpace(line, e)
	}
	return false
}

// rasShape reports whether a line starts like an entry of the RAS layout
// (an alert tag, then a 10-digit epoch), so a line of that shape the layout
// cannot read is an unplaced entry, never glued to the entry before it.
func rasShape(line []byte) bool {
	te := token(line, 0)
	if te == 0 || te > 32 {
		return false
	}
	es := skipSpace(line, te)
	ee := digitsEnd(line, es)
	return ee-es == 10 && (ee == len(line) || line[ee] == ' ')
}
