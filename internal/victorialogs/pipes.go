package victorialogs

import (
	"strconv"
	"strings"
	"time"
)

// The queries below are what query_logs asks besides the count and the
// entries; each ends in a stats pipe whose result names are these.
const (
	// ColCount, ColFirst, ColLast and ColSample are a group's count, its
	// first and last time and one original message of it.
	ColCount  = "n"
	ColFirst  = "first"
	ColLast   = "last"
	ColSample = "sample"
	// The stats columns of StatsQuery.
	ColMin = "mn"
	ColMax = "mx"
	ColAvg = "av"
	ColP50 = "p50"
	ColP95 = "p95"
	ColP99 = "p99"
)

// sampleCopy holds the original message while _msg is collapsed.
const sampleCopy = "superbiz_sample"

// ValuesQuery is the distinct values of field among the filter's entries
// with their counts (ColCount), at most max+1 rows so a caller sees that
// there are more than max.
func (f Filter) ValuesQuery(field string, max int) string {
	return f.LogsQL() + " | stats by (" + Quote(field) + ") count() " + ColCount + " | limit " + strconv.Itoa(max+1)
}

// PatternsQuery groups every entry the filter matches by its message with
// numbers collapsed (VictoriaLogs' collapse_nums: decimal and hex numbers,
// IPs, UUIDs, times), each group with its count, first and last time and
// one original message; the max largest groups.
func (f Filter) PatternsQuery(max int) string {
	return f.LogsQL() + " | copy _msg as " + sampleCopy + " | collapse_nums at _msg prettify | stats by (_msg) count() " + ColCount +
		", min(_time) " + ColFirst + ", max(_time) " + ColLast + ", min(" + sampleCopy + ") " + ColSample +
		" | sort by (" + ColCount + " desc, _msg) | limit " + strconv.Itoa(max)
}

// StatsQuery summarises the numeric values of field over the filter's
// entries, per value of by ("" for one row): count, min, max, avg and
// VictoriaLogs' quantile() estimates of p50, p95 and p99; the max largest
// groups.
func (f Filter) StatsQuery(field, by string, max int) string {
	q := f.LogsQL() + " " + Quote(field) + ":range(-inf, inf) | stats "
	if by != "" {
		q += "by (" + Quote(by) + ") "
	}
	return q + statsFuncs(field) + " | sort by (" + ColCount + " desc) | limit " + strconv.Itoa(max)
}

// RestStatsQuery is StatsQuery's one row over the entries whose by is
// none of except (the keys past StatsQuery's largest).
func (f Filter) RestStatsQuery(field, by string, except []string) string {
	vals := make([]string, len(except))
	for i, v := range except {
		vals[i] = Quote(v)
	}
	return f.LogsQL() + " " + Quote(field) + ":range(-inf, inf) not " + Quote(by) + ":in(" + strings.Join(vals, ", ") + ") | stats " + statsFuncs(field)
}

// statsFuncs are the stats functions of StatsQuery over field.
func statsFuncs(field string) string {
	fq := Quote(field)
	return "count() " + ColCount + ", min(" + fq + ") " + ColMin + ", max(" + fq + ") " + ColMax + ", avg(" + fq + ") " + ColAvg +
		", quantile(0.5, " + fq + ") " + ColP50 + ", quantile(0.95, " + fq + ") " + ColP95 + ", quantile(0.99, " + fq + ") " + ColP99
}

// HistogramQuery counts the filter's entries per bucket of every (whole
// seconds), the buckets aligned on the window's start: each row's _time
// is its bucket's start.
func (f Filter) HistogramQuery(every time.Duration) string {
	step := int64(every / time.Millisecond)
	start := f.Start.UnixMilli()
	// VictoriaLogs starts the buckets at k×step − offset.
	offset := ((-start)%step + step) % step
	return f.LogsQL() + " | stats by (_time:" + strconv.FormatInt(step, 10) + "ms offset " + strconv.FormatInt(offset, 10) + "ms) count() " + ColCount
}

// RangeQuery is the first and last time of the source's entries (its
// stream filter only, any time).
func (f Filter) RangeQuery() string {
	q := "*"
	if s := strings.TrimSpace(f.Stream); s != "" {
		q = "(" + s + ")"
	}
	return q + " | stats min(_time) " + ColFirst + ", max(_time) " + ColLast
}
