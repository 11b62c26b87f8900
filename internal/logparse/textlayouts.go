package logparse

// The text layouts of the registry (layouts.go): each finds its stamp at a
// fixed place of the line and reads what follows into level, service,
// message and fields. A line whose stamp is not where the layout puts it
// continues the previous entry (a stack frame, a wrapped message).

// parseText reads "TIMESTAMP [LEVEL] [[service]] message" with an ISO stamp
// (also "2006/01/02 15:04:05", nginx) or a syslog stamp, optionally in
// brackets, and the level in any spelling textTail knows.
func parseText(line []byte, tc *TimeCtx, r *Record) LineKind {
	i := skipSpace(line, 0)
	bracket := i < len(line) && line[i] == '['
	if bracket {
		i++
	}
	ts, n, ok := leadingTime(line[i:], tc)
	if !ok {
		return LineCont
	}
	i += n
	if bracket {
		if i >= len(line) || line[i] != ']' {
			return LineCont
		}
		i++
	}
	if !afterStamp(line, i) {
		return LineCont
	}
	r.TS = ts
	textTail(line, i, r)
	return LineTimed
}

// stampTail parses lines that start with a stamp read by stamp, followed by
// the columns textTail reads (HDFS, Spark).
func stampTail(line []byte, tc *TimeCtx, r *Record, stamp func([]byte, *TimeCtx) (int64, int, bool)) LineKind {
	ts, n, ok := stamp(line, tc)
	if !ok || !afterStamp(line, n) {
		return LineCont
	}
	r.TS = ts
	textTail(line, n, r)
	return LineTimed
}
