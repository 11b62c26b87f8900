package logs

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of one result, in bytes unless said otherwise.
const (
	maxMessage    = 300
	maxFieldKey   = 64
	maxFieldValue = 200
	maxPatterns   = 10
	// maxDistinctTemplates caps the pattern table; further templates are
	// counted under otherTemplate so counts stay honest.
	maxDistinctTemplates = 10000
	otherTemplate        = "(other messages)"
)

// Result is the whitelisted projection query_logs returns (docs/SPEC.md#query_logs).
// The members after truncated appear only when they say something: what
// was not searched, and why.
type Result struct {
	Source    string `json:"source"`
	Window    Window `json:"window"`
	Matched   int    `json:"matched"`
	Returned  int    `json:"returned"`
	Truncated bool   `json:"truncated"`
	// TruncatedBy names the per-call limits (limitDecompressed, limitTime)
	// that stopped the search before the end of the files.
	TruncatedBy []string `json:"truncated_by,omitempty"`
	// Unparsed counts what matches the filters but could not be placed in
	// time: entries whose time is missing or unreadable, and lines before a
	// file's first entry. They are not in matched, entries or patterns.
	Unparsed int `json:"unparsed,omitempty"`
	// Ordered is false, and present only then, when a file of the source
	// was found out of time order (its entries going back further than
	// seekSlack): such a file is searched from start to end, not by a
	// binary search for the window.
	Ordered *bool `json:"ordered,omitempty"`
	// Glued counts the continuation lines (no stamp of their own: stack
	// frames, wrapped text) joined to the matched entries, so an answer
	// resting on entries that are mostly glued text shows it.
	Glued int `json:"glued,omitempty"`
	// CutRecords counts the log records of OpenTelemetry Collector batch
	// lines past MaxBatchRecords per line: not searched, only counted.
	CutRecords int `json:"cut_records,omitempty"`
	// LongLines counts the lines longer than a line's bound that the scan
	// reached: only their head was read for stamp, level and message.
	LongLines int `json:"long_lines,omitempty"`
	// LevelUnread counts the entries in the window that pass every other
	// filter but whose level the layout did not read: a level filter can
	// neither count them nor rule them out (coverage "partial").
	LevelUnread int `json:"level_unread,omitempty"`
	// ServiceUnread is the same for a service filter: entries that name
	// no service.
	ServiceUnread int `json:"service_unread,omitempty"`
	// Unplaced counts the entries without a readable time (a line of the
	// layout's shape it could not read, an object without a time) lying
	// next to an entry of the window, whatever the filters: the window may
	// hold them (coverage "partial").
	Unplaced int `json:"unplaced,omitempty"`
	// TimeAmbiguous counts the entries that pass every filter but whose
	// local stamp a daylight-saving change makes ambiguous (a repeated
	// hour the file's order does not resolve, or a skipped hour) with one
	// reading inside the window and one outside (coverage "partial").
	TimeAmbiguous int `json:"time_ambiguous,omitempty"`
	// ContainsCut counts the entries that pass every other filter but in
	// which a contains word was not found in what was searched of a line
	// longer than maxSearchLine (its first 16 MiB): the word may lie past
	// it (coverage "partial"), so no negative rests on it unsaid.
	ContainsCut int `json:"contains_cut,omitempty"`
	// SkippedCount is how many files could not be read (fully); the first
	// maxSkippedListed are named in SkippedFiles.
	SkippedCount int `json:"skipped_count,omitempty"`
	// PartlyRead counts the skipped files that were searched up to a fault
	// and not to their end (a cut gzip, a file that shrank): coverage
	// "partial", since the window may lie in what was not read.
	PartlyRead   int           `json:"partly_read,omitempty"`
	SkippedFiles []SkippedFile `json:"skipped_files,omitempty"`
	Entries      []Entry       `json:"entries"`
	Patterns     []Pattern     `json:"patterns"`
	// Stats answers the input's stats: one row per key, at most
	// maxStatKeys and the rest summed (present only when asked).
	Stats []Stat `json:"stats,omitempty"`
	// StatsSampled says the percentiles rest on the first maxStatValues
	// values (count, min, max and avg stay exact).
	StatsSampled bool `json:"stats_sampled,omitempty"`
	// Histogram answers the input's histogram (present only when asked).
	Histogram *Histogram `json:"histogram,omitempty"`
	// Method says how the answer was made where it is not read from files
	// (a VictoriaLogs source: MethodVLRead, MethodVLServer).
	Method string `json:"method,omitempty"`
	Coverage
}

// Window is the absolute time range that was searched, for the model to cite.
type Window struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Entry is one matched log entry, every string cleaned and bounded.
type Entry struct {
	TS      string `json:"ts"`
	Level   string `json:"level,omitempty"`
	Service string `json:"service,omitempty"`
	Message string `json:"message"`
	// Fields holds a string per key, or a json.Number for a value the
	// layout read as a number (an access line's status, bytes and
	// timings), so stats and readers get numbers, not digits in quotes.
	Fields map[string]any `json:"fields,omitempty"`
}

// Pattern is a group of matched messages that share a template, so a burst of
// identical events reads as one line with a count.
type Pattern struct {
	Template string `json:"template"`
	Count    int    `json:"count"`
	FirstTS  string `json:"first_ts"`
	LastTS   string `json:"last_ts"`
}

type heldEntry struct {
	ts  int64
	seq int64
	e   Entry
	// bound is the entry's message bound: maxMessage, or maxChainMessage
	// for an entry holding a cause chain.
	bound int
}

// entryHeap is a min-heap by (ts, seq): the oldest held entry is evicted first.
type entryHeap []heldEntry

func (h entryHeap) Len() int { return len(h) }
func (h entryHeap) Less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].seq < h[j].seq
}
func (h entryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)   { *h = append(*h, x.(heldEntry)) }
func (h *entryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type patternAcc struct {
	count       int
	first, last int64
}

// accumulator keeps the newest `limit` entries and the template counts of
// every match, in bounded memory.
type accumulator struct {
	limit    int
	loc      *time.Location
	matched  int
	unparsed int
	// inWindow counts the timed entries read inside the window, before
	// the level and service filters (the coverage's in_window).
	inWindow int
	// glued counts the continuation lines of the matched entries.
	glued int
	// cutRecords counts batch records past MaxBatchRecords per line.
	cutRecords int
	// longLines counts lines cut to their head (logparse.MaxLineBytes).
	longLines int
	// levelUnread, serviceUnread and unplaced are the Result's; services
	// counts the window's entries that name a service.
	levelUnread, serviceUnread, unplaced, services int
	// timeAmbiguous and containsCut are the Result's TimeAmbiguous and
	// ContainsCut.
	timeAmbiguous, containsCut int
	seq                        int64
	held                       entryHeap
	patterns                   map[string]*patternAcc
	// mask masks values by key name before messages are grouped and
	// clipped, so templates differ by no secret and no cut hides one.
	mask egress.KeyNames
	// stats summarises a numeric field of the matches (nil: not asked).
	stats *statsAcc
	// hist counts the matches per time bucket (nil: not asked).
	hist *histAcc
}

// exceptionRootKey and exceptionRootUnread mark an entry's exception as
// the innermost cause of its chain's first maxChainScan bytes only: the
// chain went on, and its root may lie past them.
const (
	exceptionRootKey    = "exception_root"
	exceptionRootUnread = "not read: the chain runs past its first 1 MiB; exception is the innermost cause within it"
)

// entryCutKey and entryCutText mark an entry joined from parts (CRI lines
// tagged P) that ran past logparse.MaxJoinedBytes: it was read, and its
// contains words searched, in its first 16 MiB only.
const (
	entryCutKey  = "entry_cut"
	entryCutText = "read to its first 16 MiB: the parts after them were not read"
)

func newAccumulator(limit int, loc *time.Location) *accumulator {
	return &accumulator{limit: limit, loc: loc, patterns: map[string]*patternAcc{}, mask: egress.NewKeyNames()}
}

// add records a matched entry: r its header, cont its continuation;
// partsCut says it is a joined entry read only to logparse.MaxJoinedBytes.
func (a *accumulator) add(r *logparse.Record, cont []byte, partsCut bool) {
	a.matched++
	a.seq++
	if a.stats != nil {
		a.stats.add(r)
	}
	if a.hist != nil {
		a.hist.add(r.TS)
	}
	trace := -1 // the field holding a whole stack trace, read as cont
	if len(cont) == 0 {
		trace = traceField(r.Fields)
		if trace >= 0 {
			cont = r.Fields[trace].Val
		}
	}
	c := condense(r.Msg, cont)
	// masked before it is grouped, so templates differ by no secret
	clean := a.mask.Text(cleanText(c.text, true))
	var exc string
	if len(c.exception) > 0 {
		exc = textclip.Bytes(a.mask.Text(cleanText(c.exception, false)), maxFieldValue)
	}
	a.addPattern(a.template(r, clean, exc), r.TS)
	if len(a.held) >= a.limit {
		oldest := a.held[0]
		if r.TS < oldest.ts || (r.TS == oldest.ts && a.seq < oldest.seq) {
			return
		}
	}
	bound := maxMessage
	if c.chain {
		bound = maxChainMessage
	}
	e := Entry{
		TS:      a.ts(r.TS),
		Level:   r.Level,
		Service: textclip.Bytes(cleanText(r.Service, false), logparse.MaxServiceText),
		Message: textclip.Bytes(trimNewlines(clean), bound),
	}
	if exc != "" {
		e.Fields = map[string]any{"exception": exc}
		if c.past {
			e.Fields[exceptionRootKey] = exceptionRootUnread
		}
	}
	if partsCut {
		if e.Fields == nil {
			e.Fields = map[string]any{}
		}
		e.Fields[entryCutKey] = entryCutText
	}
	for i, f := range r.Fields {
		if len(e.Fields) == logparse.MaxFields {
			break
		}
		if i == trace {
			continue
		}
		if e.Fields == nil {
			e.Fields = make(map[string]any, min(len(r.Fields), logparse.MaxFields))
		}
		key := cleanText(f.Key, false)
		k := textclip.Bytes(key, maxFieldKey)
		if _, taken := e.Fields[k]; taken {
			continue
		}
		v := a.mask.Field(key, cleanText(f.Val, false))
		if n, ok := jsonNumber(v); ok && f.Num {
			e.Fields[k] = n
			continue
		}
		e.Fields[k] = textclip.Bytes(v, maxFieldValue)
	}
	heap.Push(&a.held, heldEntry{ts: r.TS, seq: a.seq, e: e, bound: bound})
	if len(a.held) > a.limit {
		heap.Pop(&a.held)
	}
}

// template is the pattern an entry is grouped under: the layout's own key
// (an access line's "METHOD route status"), else its first line's
// template, followed by its innermost cause's when it has one, so that
// errors of one head but different root causes stay apart.
func (a *accumulator) template(r *logparse.Record, clean, exc string) string {
	if len(r.Pattern) > 0 {
		return a.mask.Text(cleanText(r.Pattern, false))
	}
	t := logparse.Template(clean)
	if exc != "" {
		if et := logparse.Template(exc); !strings.Contains(t, et) {
			t = textclip.Bytes(t+" ← "+et, maxTemplate)
		}
	}
	return t
}

// maxTemplate bounds a pattern's template with its cause.
const maxTemplate = 300

// traceField is the index of the field of r that holds a whole stack trace
// (a traceFields key whose value has several lines), -1 when none.
func traceField(fields []logparse.KV) int {
	for i, f := range fields {
		if bytes.IndexByte(f.Val, '\n') < 0 {
			continue
		}
		for _, k := range traceFields {
			if string(f.Key) == k {
				return i
			}
		}
	}
	return -1
}

// maxHeadWithFrames bounds the first line of a multi-line entry in its
// message, so the first frames of a stack trace fit in maxMessage too.
const maxHeadWithFrames = maxMessage / 2

func trimNewlines(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}

func (a *accumulator) addPattern(t string, ts int64) {
	p, ok := a.patterns[t]
	if !ok {
		if len(a.patterns) >= maxDistinctTemplates {
			t = otherTemplate
			p = a.patterns[t]
		}
		if p == nil {
			p = &patternAcc{first: ts, last: ts}
			a.patterns[t] = p
		}
	}
	p.count++
	p.first = min(p.first, ts)
	p.last = max(p.last, ts)
}

func (a *accumulator) ts(ns int64) string {
	return time.Unix(0, ns).In(a.loc).Format("2006-01-02T15:04:05.000Z07:00")
}

// newestFirst is a copy of the held entries in the order result returns
// them: newest first, the later read first among equal times.
func (a *accumulator) newestFirst() []heldEntry {
	held := append([]heldEntry(nil), a.held...)
	sort.Slice(held, func(i, j int) bool {
		if held[i].ts != held[j].ts {
			return held[i].ts > held[j].ts
		}
		return held[i].seq > held[j].seq
	})
	return held
}

// result builds the projection: entries newest first, patterns by count.
func (a *accumulator) result(source string, start, end int64) Result {
	held := a.newestFirst()
	res := Result{
		Source:   source,
		Window:   Window{Start: a.ts(start), End: a.ts(end)},
		Matched:  a.matched,
		Entries:  make([]Entry, 0, len(held)),
		Patterns: []Pattern{},
	}
	for _, h := range held {
		res.Entries = append(res.Entries, redactEntry(h.e, h.bound))
	}
	type kp struct {
		t string
		p *patternAcc
	}
	all := make([]kp, 0, len(a.patterns))
	for t, p := range a.patterns {
		all = append(all, kp{t, p})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].p.count != all[j].p.count {
			return all[i].p.count > all[j].p.count
		}
		return all[i].t < all[j].t
	})
	for i, x := range all {
		if i == maxPatterns {
			res.Truncated = true
			break
		}
		res.Patterns = append(res.Patterns, Pattern{Template: egress.Mask(x.t).String(), Count: x.p.count, FirstTS: a.ts(x.p.first), LastTS: a.ts(x.p.last)})
	}
	res.Returned = len(res.Entries)
	if a.stats != nil {
		res.Stats = a.stats.rows()
		res.StatsSampled = a.stats.sampled
		for i := range res.Stats {
			res.Stats[i].Key = egress.Mask(res.Stats[i].Key).String()
		}
	}
	if a.hist != nil {
		res.Histogram = a.hist.result(a)
	}
	res.Unparsed = a.unparsed
	res.Glued = a.glued
	res.CutRecords = a.cutRecords
	res.LongLines = a.longLines
	res.LevelUnread = a.levelUnread
	res.ServiceUnread = a.serviceUnread
	res.Unplaced = a.unplaced
	res.TimeAmbiguous = a.timeAmbiguous
	res.ContainsCut = a.containsCut
	res.Truncated = res.Truncated || res.Returned < res.Matched
	return res
}

// redactEntry passes a kept entry through the shared value-shape redaction
// (DSNs, bearer tokens, key=value secrets) on top of the key-name masking
// done when it was added (fields named like secrets already hold the
// marker). It runs in the adapter although the boundary masks the
// observation again, because a Marker can be longer than the secret it
// replaces: fit must measure the entry as the boundary will pass it, and the
// clip to maxMessage must come after the masking, not cut a secret in half.
func redactEntry(e Entry, bound int) Entry {
	e.Message = textclip.Bytes(egress.Mask(e.Message).String(), bound)
	for k, v := range e.Fields {
		if v, ok := v.(string); ok && v != egress.Marker {
			e.Fields[k] = textclip.Bytes(egress.Mask(v).String(), maxFieldValue)
		}
	}
	return e
}

// jsonNumber is v as a JSON number: as written when it is one in JSON's
// syntax ("0.023", "504"), else its value in shortest form ("+1" 1, ".5"
// 0.5); ok is false when v is no finite number (a masked secret, "-").
func jsonNumber(v string) (json.Number, bool) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return "", false
	}
	if len(v) <= maxNumberText && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid([]byte(v)) {
		return json.Number(v), true
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
}

// maxNumberText bounds a number kept as written; a longer one (a run of
// digits past any precision) is shown in shortest form.
const maxNumberText = 32

// fit drops the oldest entries, then the rarest patterns, until the JSON
// encoding fits maxBytes; it reports the encoded size.
func fit(res *Result, maxBytes int) (int, error) {
	for {
		b, err := tools.MarshalJSON(res)
		if err != nil {
			return 0, err
		}
		if len(b) <= maxBytes {
			return len(b), nil
		}
		switch {
		case len(res.Entries) > 0:
			res.Entries = res.Entries[:len(res.Entries)-1]
			res.Returned = len(res.Entries)
		case len(res.Patterns) > 0:
			res.Patterns = res.Patterns[:len(res.Patterns)-1]
		case len(res.Stats) > 1:
			res.Stats = res.Stats[:len(res.Stats)-1]
		case len(res.SkippedFiles) > 0: // skipped_count still says how many
			res.SkippedFiles = res.SkippedFiles[:len(res.SkippedFiles)-1]
		default:
			return len(b), nil
		}
		res.Truncated = true
	}
}
