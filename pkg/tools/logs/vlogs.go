package logs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/internal/victorialogs"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// A [[logs]] source with backend = "victorialogs" answers query_logs with
// the result it gives on files, made from LogsQL queries: matched from
// stats count(), level_unread and service_unread from counts of the
// entries whose field is missing, in_window from a count before level and
// service, the source's range from min(_time) and max(_time). When every
// match fits in one read (maxVLRead entries), the matches themselves go
// through the same accumulator as lines of a file, so entries, patterns,
// stats and histogram are made exactly as on files. Past that, the newest
// entries are read and patterns, stats and histogram are asked of
// VictoriaLogs over every match; the result's method says so.

// Bounds of a VictoriaLogs source.
const (
	// maxVLRead is the most matches read to be summarised here (the
	// newest of them when more match).
	maxVLRead = 2000
	// vlMaxBytes bounds one answer of the server.
	vlMaxBytes = 16 << 20
	// vlTimeout bounds one request (and is the query's own timeout).
	vlTimeout = 30 * time.Second
	// maxVLGroups bounds the message groups asked of the server.
	maxVLGroups = 1000
	// maxLevelValues bounds the distinct values of the level field read.
	maxLevelValues = 1000
)

// The result's method on a VictoriaLogs source: how the answer was made.
const (
	// MethodVLRead: every match was read and summarised as on files.
	MethodVLRead = "victorialogs: matched by stats count(); every match read and summarised as on files; contains searched in _msg only"
	// MethodVLServer: too many matches to read; the summaries are the server's.
	MethodVLServer = "victorialogs: matched by stats count(); the newest entries read; patterns over every match grouped by VictoriaLogs' collapse_nums then by template (its %d largest groups, the rest under %q); stats with VictoriaLogs' quantile() estimates for p50, p95, p99 (count, min, max, avg exact), by service or level reading the raw field; histogram counted by VictoriaLogs; contains searched in _msg only"
)

// vlFields are the fields of a VictoriaLogs row that are no entry field.
var vlFields = []string{"_time", "_msg", "_stream", "_stream_id"}

// newVLClient builds the client of a victorialogs source.
func newVLClient(s Source) (*victorialogs.Client, error) {
	o := victorialogs.Options{URL: s.URL, Tenant: s.Tenant, Timeout: vlTimeout, MaxBytes: vlMaxBytes}
	switch {
	case s.BearerTokenEnv != "":
		o.Bearer = s.Secret.Reveal()
	case s.Username != "":
		o.Username, o.Password = s.Username, s.Secret.Reveal()
	}
	return victorialogs.New(o)
}

// vlCall is one query_logs call on a VictoriaLogs source.
type vlCall struct {
	c   *victorialogs.Client
	src *source
	// read is the most matches read to be summarised here.
	read int64
	p    *parsedInput
	// base is the window, stream filter, service and words.
	base        victorialogs.Filter
	level, serv string
}

// executeVL answers a call on a VictoriaLogs source. A node that cannot
// answer (502, 503, 504, a timeout) fails the call UNAVAILABLE naming the
// node and the window: never a partial answer.
func (t *Tool) executeVL(ctx context.Context, call tools.Call, p *parsedInput) tools.Outcome {
	start, end := p.window.At(call.Now)
	lf, sf := p.src.Fields()
	v := &vlCall{c: p.src.vl, read: int64(t.vlRead), src: p.src, p: p, level: lf, serv: sf,
		base: victorialogs.Filter{Start: start, End: end, Stream: p.src.Filter, LevelField: lf, ServiceField: sf, Service: p.in.Service, Words: p.words}}
	res, empty, err := v.run(ctx)
	if err != nil {
		return tools.Failed(vlCode(ctx, err), fmt.Errorf("query_logs %s: %w", p.src.Name, err))
	}
	maxBytes := call.MaxBytes
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	if _, err := fit(&res, maxBytes); err != nil {
		return tools.Failed(tools.CodeInternal, fmt.Errorf("encode query_logs result: %w", err))
	}
	status := tools.NoEvidence
	if res.Matched > 0 {
		status = tools.EvidenceFound
	}
	return tools.Outcome{Status: status, Result: res, EmptyWindow: empty}
}

// vlCode is the tool error code of a failed VictoriaLogs call.
func vlCode(ctx context.Context, err error) string {
	if c := tools.ContextCode(ctx.Err()); c != "" {
		return c
	}
	var ve *victorialogs.Error
	if errors.As(err, &ve) && ve.Unavailable() {
		return tools.CodeUnavailable
	}
	return tools.CodeInternal
}

// run makes the result.
func (v *vlCall) run(ctx context.Context) (Result, string, error) {
	p := v.p
	acc := newAccumulator(*p.in.Limit, v.src.Location)
	acc.stats = newStatsAcc(p.in.Stats)
	f := v.base
	none := false // a level asked that no value of the field spells
	if p.in.Level != "" {
		levels, unread, err := v.levels(ctx)
		if err != nil {
			return Result{}, "", err
		}
		f.Levels, acc.levelUnread = levels, unread
		none = len(levels) == 0
	}
	var matched int64
	if !none {
		var err error
		if matched, err = v.c.Count(ctx, f.CountQuery(), "matched", f); err != nil {
			return Result{}, "", err
		}
		if p.in.Service != "" {
			g := f
			g.Service, g.ServiceMissing = "", true
			n, err := v.c.Count(ctx, g.CountQuery(), "matched", g)
			if err != nil {
				return Result{}, "", err
			}
			acc.serviceUnread = int(n)
		}
	}
	w := victorialogs.Filter{Start: f.Start, End: f.End, Stream: f.Stream, Words: f.Words}
	inWindow, err := v.c.Count(ctx, w.CountQuery(), "matched", w)
	if err != nil {
		return Result{}, "", err
	}
	acc.inWindow = int(inWindow)
	readAll := matched <= v.read
	var rows []victorialogs.Row
	if matched > 0 {
		n := int(matched)
		if !readAll {
			n = *p.in.Limit
		}
		rows, err = v.c.Query(ctx, f.EntriesQuery(), n, f)
		var ve *victorialogs.Error
		if readAll && errors.As(err, &ve) && ve.TooLarge() {
			// too many bytes to read every match: the newest, and the server's summaries
			readAll = false
			rows, err = v.c.Query(ctx, f.EntriesQuery(), *p.in.Limit, f)
		}
		if err != nil {
			return Result{}, "", err
		}
	}
	startNS, endNS := f.Start.UnixNano(), f.End.UnixNano()
	if readAll {
		acc.hist = newHistAcc(p.every, startNS, endNS)
	}
	if err := v.add(acc, rows); err != nil {
		return Result{}, "", err
	}
	if readAll && acc.matched != int(matched) {
		return Result{}, "", fmt.Errorf("victorialogs counted %d matches and gave %d entries: the store changed during the call, ask again", matched, acc.matched)
	}
	acc.matched = int(matched)
	res := acc.result(v.src.Name, startNS, endNS)
	res.Method = MethodVLRead
	if !readAll {
		res.Method = fmt.Sprintf(MethodVLServer, maxVLGroups, otherTemplate)
		if err := v.summaries(ctx, f, acc, &res); err != nil {
			return Result{}, "", err
		}
	}
	empty, err := v.coverage(ctx, acc, &res)
	return res, empty, err
}

// levels reads the distinct values of the level field among the entries
// of the window passing every filter but level (service missing too): the
// values that read as the asked level, and the count of the entries whose
// value is missing or reads as no level (level_unread), as on files.
func (v *vlCall) levels(ctx context.Context) ([]string, int, error) {
	g := v.base
	g.ServiceOrMissing = true
	rows, err := v.c.Query(ctx, g.ValuesQuery(v.level, maxLevelValues), 0, g)
	if err != nil {
		return nil, 0, err
	}
	if len(rows) > maxLevelValues {
		return nil, 0, fmt.Errorf("level_field %q holds more than %d distinct values in the window: it is no level field (set level_field)", v.level, maxLevelValues)
	}
	var levels []string
	unread := 0
	for _, r := range rows {
		n, err := count(r)
		if err != nil {
			return nil, 0, err
		}
		switch logparse.NormLevel(r[v.level]) {
		case v.p.in.Level:
			levels = append(levels, r[v.level])
		case "":
			unread += n
		}
	}
	return levels, unread, nil
}

// count reads a row's victorialogs.ColCount.
func count(r victorialogs.Row) (int, error) {
	n, err := strconv.Atoi(r[victorialogs.ColCount])
	if err != nil {
		return 0, fmt.Errorf("victorialogs: a count %q does not read: %w", r[victorialogs.ColCount], err)
	}
	return n, nil
}

// add passes rows, oldest first, to the accumulator as entries of a file.
func (v *vlCall) add(acc *accumulator, rows []victorialogs.Row) error {
	type timed struct {
		ts  int64
		row victorialogs.Row
	}
	all := make([]timed, 0, len(rows))
	for _, r := range rows {
		ts, err := time.Parse(time.RFC3339Nano, r["_time"])
		if err != nil {
			return fmt.Errorf("victorialogs: an entry's _time %q does not read: %w", r["_time"], err)
		}
		all = append(all, timed{ts.UnixNano(), r})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ts < all[j].ts })
	for _, e := range all {
		rec := v.record(e.ts, e.row)
		acc.add(&rec, nil, false)
	}
	return nil
}

// record is a row as logparse reads an entry of a JSON file: the level
// read as on files, the service, the message and the other fields (in
// name order), a value in JSON's number syntax read as a number.
func (v *vlCall) record(ts int64, r victorialogs.Row) logparse.Record {
	rec := logparse.Record{TS: ts, Level: logparse.NormLevel(r[v.level]), Service: []byte(r[v.serv]), Msg: []byte(r["_msg"])}
	keys := make([]string, 0, len(r))
	for k := range r {
		if k != v.level && k != v.serv && !slices.Contains(vlFields, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		val, num := r[k], isJSONNumber(r[k])
		if num {
			val = vlNumber(val)
		}
		rec.Fields = append(rec.Fields, logparse.KV{Key: []byte(k), Val: []byte(val), Num: num})
	}
	return rec
}

// vlNumber is a fraction as it was most likely written: VictoriaLogs
// keeps some with float noise (1.9 as "1.9000000000000001"), so one of
// more than 15 significant digits is rounded to 15. Integers (ids) are
// kept as they are.
func vlNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	if r := strconv.FormatFloat(x, 'g', 15, 64); len(r) < len(s) {
		if y, _ := strconv.ParseFloat(r, 64); strconv.FormatFloat(y, 'g', -1, 64) == r {
			return r
		}
	}
	return s
}

// isJSONNumber reports whether s is written as a JSON number (VictoriaLogs
// keeps every value as a string; a JSON number ingested reads so).
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}

// summaries replaces the patterns, stats and histogram the newest entries
// gave with the server's, over every match.
func (v *vlCall) summaries(ctx context.Context, f victorialogs.Filter, acc *accumulator, res *Result) error {
	rows, err := v.c.Query(ctx, f.PatternsQuery(maxVLGroups), 0, f)
	if err != nil {
		return err
	}
	pa := newAccumulator(1, v.src.Location)
	counted := 0
	for _, r := range rows {
		n, err := count(r)
		if err != nil {
			return err
		}
		first, err1 := time.Parse(time.RFC3339Nano, r[victorialogs.ColFirst])
		last, err2 := time.Parse(time.RFC3339Nano, r[victorialogs.ColLast])
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("victorialogs: a group's time does not read: %w", err)
		}
		pa.addGroup(pa.templateOf([]byte(r[victorialogs.ColSample])), n, first.UnixNano(), last.UnixNano())
		counted += n
	}
	if rest := res.Matched - counted; rest > 0 {
		// the groups past maxVLGroups: counted, times unknown within the window
		pa.addGroup(otherTemplate, rest, f.Start.UnixNano(), f.End.UnixNano())
	}
	pr := pa.result(v.src.Name, 0, 0)
	res.Patterns = pr.Patterns
	res.Truncated = res.Truncated || pr.Truncated
	if st := v.p.in.Stats; st != nil {
		if res.Stats, err = v.stats(ctx, f, st); err != nil {
			return err
		}
		res.StatsSampled = false
	}
	if v.p.every > 0 {
		h, err := v.histogram(ctx, f, acc)
		if err != nil {
			return err
		}
		res.Histogram = h
	}
	return nil
}

// templateOf is the pattern a message is grouped under, as add makes it.
func (a *accumulator) templateOf(msg []byte) string {
	c := condense(msg, nil)
	clean := a.mask.Text(cleanText(c.text, true))
	var exc string
	if len(c.exception) > 0 {
		exc = textclip.Bytes(a.mask.Text(cleanText(c.exception, false)), maxFieldValue)
	}
	return a.template(&logparse.Record{Msg: msg}, clean, exc)
}

// addGroup counts n matches of template t between first and last.
func (a *accumulator) addGroup(t string, n int, first, last int64) {
	a.addPattern(t, first)
	p := a.patterns[t]
	if p == nil {
		p = a.patterns[otherTemplate]
	}
	p.count += n - 1
	p.last = max(p.last, last)
}

// stats asks the server for the stats rows: the maxStatKeys largest keys,
// and the rest in one otherStatKey row.
func (v *vlCall) stats(ctx context.Context, f victorialogs.Filter, st *StatsInput) ([]Stat, error) {
	by := st.By
	switch by {
	case "service":
		by = v.serv
	case "level":
		by = v.level
	}
	rows, err := v.c.Query(ctx, f.StatsQuery(st.Field, by, maxStatKeys+1), 0, f)
	if err != nil {
		return nil, err
	}
	out := make([]Stat, 0, min(len(rows), maxStatKeys+1))
	var keys []string
	for _, r := range rows[:min(len(rows), maxStatKeys)] {
		key := allStatKey
		if by != "" {
			keys = append(keys, r[by])
			key = egress.Mask(textclip.Bytes(cleanText([]byte(r[by]), false), maxFieldValue)).String()
		}
		s, err := stat(key, r)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(rows) <= maxStatKeys {
		return out, nil
	}
	rest, err := v.c.Query(ctx, f.RestStatsQuery(st.Field, by, keys), 0, f)
	if err != nil {
		return nil, err
	}
	if len(rest) != 1 {
		return nil, fmt.Errorf("victorialogs: the other keys' stats gave %d rows, want 1", len(rest))
	}
	s, err := stat(otherStatKey, rest[0])
	if err != nil {
		return nil, err
	}
	return append(out, s), nil
}

// stat reads one stats row.
func stat(key string, r victorialogs.Row) (Stat, error) {
	n, err := count(r)
	if err != nil {
		return Stat{}, err
	}
	s := Stat{Key: key, Count: n}
	for _, c := range []struct {
		col string
		to  *float64
	}{{victorialogs.ColMin, &s.Min}, {victorialogs.ColMax, &s.Max}, {victorialogs.ColAvg, &s.Avg},
		{victorialogs.ColP50, &s.P50}, {victorialogs.ColP95, &s.P95}, {victorialogs.ColP99, &s.P99}} {
		x, err := strconv.ParseFloat(r[c.col], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return Stat{}, fmt.Errorf("victorialogs: stats %s %q does not read as a number", c.col, r[c.col])
		}
		*c.to = x
	}
	if math.Abs(s.Avg) < 1e300 {
		s.Avg = math.Round(s.Avg*1e6) / 1e6
	}
	return s, nil
}

// histogram asks the server for the matches per bucket.
func (v *vlCall) histogram(ctx context.Context, f victorialogs.Filter, acc *accumulator) (*Histogram, error) {
	rows, err := v.c.Query(ctx, f.HistogramQuery(v.p.every), 0, f)
	if err != nil {
		return nil, err
	}
	h := newHistAcc(v.p.every, f.Start.UnixNano(), f.End.UnixNano())
	for _, r := range rows {
		at, err := time.Parse(time.RFC3339Nano, r["_time"])
		if err != nil {
			return nil, fmt.Errorf("victorialogs: a bucket's _time %q does not read: %w", r["_time"], err)
		}
		n, err := count(r)
		if err != nil {
			return nil, err
		}
		off := at.UnixNano() - h.start
		if off%h.every != 0 {
			return nil, fmt.Errorf("victorialogs: a bucket starts at %s, off the window's buckets", r["_time"])
		}
		if i := off / h.every; i >= 0 && i < int64(len(h.counts)) {
			h.counts[i] += n
		}
	}
	return h.result(acc), nil
}

// coverage states what the window held before the filters (in_window, set
// by run) and the source's first and last entry; like files, it returns
// the account of a window without a match that held nothing ("none") or
// held entries the filters could not judge ("partial").
func (v *vlCall) coverage(ctx context.Context, acc *accumulator, res *Result) (string, error) {
	rows, err := v.c.Query(ctx, v.base.RangeQuery(), 0, v.base)
	if err != nil {
		return "", err
	}
	res.Coverage = Coverage{Coverage: coverageData, InWindow: acc.inWindow}
	if len(rows) == 1 && rows[0][victorialogs.ColFirst] != "" {
		first, err1 := time.Parse(time.RFC3339Nano, rows[0][victorialogs.ColFirst])
		last, err2 := time.Parse(time.RFC3339Nano, rows[0][victorialogs.ColLast])
		if err := errors.Join(err1, err2); err != nil {
			return "", fmt.Errorf("victorialogs: the source's range does not read: %w", err)
		}
		res.SourceFirst, res.SourceLast = acc.ts(first.UnixNano()), acc.ts(last.UnixNano())
	}
	q := &query{level: v.p.in.Level, service: v.p.in.Service}
	if account := partialAccount(v.src.Name, q, res); account != "" {
		res.Coverage.Coverage = tools.CoveragePartial
		if res.Matched > 0 {
			return "", nil
		}
		return account, nil
	}
	if res.Matched > 0 || acc.inWindow > 0 {
		return "", nil
	}
	if len(v.p.words) > 0 {
		// no entry holds the words: the window may hold others
		w := victorialogs.Filter{Start: v.base.Start, End: v.base.End, Stream: v.base.Stream}
		n, err := v.c.Count(ctx, w.CountQuery(), "matched", w)
		if err != nil || n > 0 {
			return "", err
		}
	}
	res.Coverage.Coverage = tools.CoverageNone
	if res.SourceFirst == "" {
		return fmt.Sprintf("log source %s holds no entry; nothing in %s – %s", v.src.Name, res.Window.Start, res.Window.End), nil
	}
	return fmt.Sprintf("log source %s covers %s – %s; nothing in the asked window %s – %s", v.src.Name, res.SourceFirst, res.SourceLast, res.Window.Start, res.Window.End), nil
}

// ProbeWindow is the window of Probe's query.
const ProbeWindow = time.Hour

// Probe checks a victorialogs source the way query_logs reaches it (URL,
// tenant, credentials, filter): it counts the source's entries in the
// ProbeWindow before now, a query that reads no entry. The error is the
// client's (a *victorialogs.Error naming the node, or the status).
func Probe(ctx context.Context, s Source, now time.Time) (int64, error) {
	c, err := newVLClient(s)
	if err != nil {
		return 0, err
	}
	f := victorialogs.Filter{Start: now.Add(-ProbeWindow), End: now, Stream: s.Filter}
	return c.Count(ctx, f.CountQuery(), "matched", f)
}
