package logs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/textclip"
)

// Sample bounds of an inspection, per file: the head whose lines are
// counted and shown, and the tail read for the end of the time range.
const (
	inspectHead = 1 << 20
	inspectTail = 256 << 10
	// MaxInspectEntries bounds the entries an inspection returns.
	MaxInspectEntries = 100
)

// Inspection is what `doctor` and `logs inspect` report about one log
// source: its files, how each reads (layout, lines placed in time, time
// range), the first entries as query_logs shows them, and the files a call
// would skip, and why.
type Inspection struct {
	Source string
	Files  int
	// Reports describe each file that can be read, from a sample of it.
	Reports []FileReport
	// FirstTS and LastTS are the time range the samples of all files cover
	// ("" when no sampled line has a time).
	FirstTS, LastTS string
	// Entries are the first entries of the files, in file order, exactly
	// as query_logs would return them (cleaned, masked, bounded); with a
	// filter, the newest matching entries of all the files, newest first.
	Entries []InspectedEntry
	// Filter is the level and contains words the entries were matched
	// with ("" without one); Matched counts the matches, of which Entries
	// holds the first.
	Filter  string
	Matched int
	// Empty are the files with no line to read (blank): a call reads them
	// and finds nothing, without complaint.
	Empty []string
	// Skipped are the files a call would skip, each with the reason the model
	// sees and the underlying error for the operator.
	Skipped []SkippedFileDetail
	// TruncatedBy names the per-call limits the check itself hit: files past
	// that point were not checked.
	TruncatedBy []string
}

// Readable reports whether a query_logs call reads at least one file of
// the source (a blank one counts): doctor fails a source, and `logs
// inspect` exits 1, exactly when it does not; Unreadable says why.
func (in Inspection) Readable() bool { return len(in.Reports)+len(in.Empty) > 0 }

// Unreadable is why no file of the source can be read, for a source that is
// not Readable: no file matches, or every file that does would be skipped.
func (in Inspection) Unreadable() string {
	if in.Files == 0 {
		return "no file matches its paths"
	}
	return fmt.Sprintf("all %d file(s) would be skipped, each with its reason", in.Files)
}

// FileReport is how one file reads, judged on a sample: its first
// inspectHead bytes, and its last inspectTail bytes for the time range.
type FileReport struct {
	File string `json:"file"`
	// Layout is the format the file is read with (detected under auto).
	Layout string `json:"layout"`
	// Lines counts the non-empty lines of the sample; Placed those that
	// start an entry with a readable time; Glued the continuation lines
	// joined to the entry before them (stack frames, wrapped text: no stamp
	// of their own). The rest could not be placed: an entry whose time is
	// missing or does not parse, or text before the first entry.
	Lines  int `json:"lines"`
	Placed int `json:"placed"`
	Glued  int `json:"glued"`
	// FirstTS and LastTS are the earliest and latest times seen.
	FirstTS string `json:"first_ts,omitempty"`
	LastTS  string `json:"last_ts,omitempty"`
	// Whole says whether the sample was the whole file.
	Whole bool `json:"whole"`
	// Ordered is false when the file was found out of time order (by the
	// samples query_logs takes across it or by the entries of the sample
	// going back more than seekSlack): query_logs searches it in full.
	Ordered bool `json:"ordered"`
	// NULRuns counts the runs of NUL bytes at a line start in the sample:
	// the hole a copytruncate rotation leaves before the writer's next
	// line, read past (never glued to that line).
	NULRuns int `json:"nul_runs,omitempty"`

	first, last int64
	// path is the file's path as found (File is cleaned for display).
	path string
	// openEnd says the sample read neither the whole file nor its tail (a
	// compressed or UTF-16 file): its last time is a lower bound.
	openEnd bool
}

// InspectedEntry is an entry as query_logs returns it, with its file.
type InspectedEntry struct {
	File string `json:"file"`
	Entry
}

// SkippedFileDetail is a skipped file with its reason and the error behind it.
type SkippedFileDetail struct {
	SkippedFile
	Err error
}

// InspectOptions tune an inspection.
type InspectOptions struct {
	// Entries is how many entries to return (at most MaxInspectEntries).
	Entries int
	// Level and Contains, when set, replace the first entries by the ones
	// a query_logs call with this level and contains matches over the
	// whole of each file, up to now: how an ERROR entry with its trace
	// reads, wherever it is in the file.
	Level, Contains string
}

// Inspect reads every file of src the way a query_logs call does (same
// skipping rules, same per-call limits) with a window no entry falls in, so
// it names exactly the files a call would skip; then it samples each file
// that can be read for its layout, share of lines placed in time and time
// range. An error means the source itself is misconfigured or the globs
// cannot be expanded.
func Inspect(ctx context.Context, src Source, opt InspectOptions) (Inspection, error) {
	flt, err := newFilter(opt.Level, opt.Contains)
	if err != nil {
		return Inspection{}, err
	}
	t, err := New([]Source{src})
	if err != nil {
		return Inspection{}, err
	}
	s := t.sources[0]
	if s.vl != nil {
		return Inspection{}, fmt.Errorf("log source %s is a victorialogs source (%s): inspect reads files; superbiz doctor checks it", s.Name, BackendVictoriaLogs)
	}
	files, err := Files(s.Paths)
	if err != nil {
		return Inspection{}, err
	}
	in := Inspection{Source: s.Name, Files: len(files)}
	if len(files) == 0 {
		return in, nil
	}
	// near the last representable instant (leaving room for seekSlack):
	// time-ordered plain files are passed over by the binary search,
	// everything else is read to its end
	end := int64(math.MaxInt64) - int64(time.Hour)
	q := &query{startNS: end - int64(time.Minute), endNS: end, limit: 1}
	rep, err := t.scan(ctx, s, q, newAccumulator(1, s.Location), files)
	if err != nil {
		return in, fmt.Errorf("check log source %q: %w", s.Name, err)
	}
	skipped := map[string]bool{}
	for i, sk := range rep.skipped {
		d := SkippedFileDetail{SkippedFile: sk, Err: rep.errs[i]}
		var fe *fileError
		if errors.As(rep.errs[i], &fe) {
			d.Err = fe.err
		}
		in.Skipped = append(in.Skipped, d)
		skipped[sk.File] = true
	}
	in.TruncatedBy = rep.truncatedBy

	want := min(max(opt.Entries, 0), MaxInspectEntries)
	sampled := want
	if flt.set() {
		sampled = 0
		in.Filter = flt.String()
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return in, err
		}
		name := textclip.Bytes(cleanText([]byte(f), false), maxSkippedPath)
		if skipped[name] {
			continue
		}
		r, entries, err := s.sample(ctx, f, sampled-len(in.Entries))
		if err != nil {
			// read by the scan a moment ago: the file changed since
			in.Skipped = append(in.Skipped, SkippedFileDetail{SkippedFile: SkippedFile{File: name, Reason: reasonOpen}, Err: err})
			continue
		}
		if r.Lines == 0 {
			in.Empty = append(in.Empty, name) // searched without complaint
			continue
		}
		r.File, r.path = name, f
		r.Ordered = r.Ordered && !rep.unordered[f]
		in.Reports = append(in.Reports, r)
		for _, e := range entries {
			in.Entries = append(in.Entries, InspectedEntry{File: name, Entry: e})
		}
	}
	first, last, ok, _ := spanOf(in.Reports)
	if ok {
		a := newAccumulator(1, s.Location)
		in.FirstTS, in.LastTS = a.ts(first), a.ts(last)
	}
	if !flt.set() {
		return in, nil
	}
	// the window a call asking "up to now" reads (and past the newest
	// sampled time, so a file stamped ahead of this clock is read too)
	endNS := time.Now().Add(time.Hour).UnixNano()
	if ok {
		endNS = max(endNS, last+int64(time.Hour))
	}
	type timed struct {
		ns int64
		e  InspectedEntry
	}
	var found []timed
	for _, r := range in.Reports {
		if err := ctx.Err(); err != nil {
			return in, err
		}
		q := &query{startNS: 0, endNS: endNS, level: flt.level, words: flt.words, limit: want}
		acc := newAccumulator(q.limit, s.Location)
		rep, err := t.scan(ctx, s, q, acc, []string{r.path})
		if err != nil {
			return in, fmt.Errorf("search log file %s: %w", r.File, err)
		}
		for _, l := range rep.truncatedBy {
			if !slices.Contains(in.TruncatedBy, l) {
				in.TruncatedBy = append(in.TruncatedBy, l)
			}
		}
		in.Matched += acc.matched
		held := acc.newestFirst()
		for i, e := range acc.result(s.Name, q.startNS, q.endNS).Entries {
			found = append(found, timed{held[i].ts, InspectedEntry{File: r.File, Entry: e}})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].ns > found[j].ns })
	for _, f := range found[:min(len(found), want)] {
		in.Entries = append(in.Entries, f.e)
	}
	return in, nil
}

// filter is the level and contains words of an inspection, validated as a
// query_logs call validates them.
type filter struct {
	level    string
	contains string
	words    [][]byte
}

// newFilter validates level (one of ERROR, WARN, INFO, DEBUG, any case) and
// contains (at most maxWords words) as query_logs does.
func newFilter(level, contains string) (filter, error) {
	lv, err := canonicalLevel(level)
	if err != nil {
		return filter{}, err
	}
	f := filter{level: lv}
	words, err := containsWords(contains)
	if err != nil {
		return filter{}, err
	}
	f.contains, f.words = strings.Join(words, " "), lowerWords(words)
	return f, nil
}

// set reports whether the filter selects anything.
func (f filter) set() bool { return f.level != "" || len(f.words) > 0 }

// String is the filter as the inspection names it: level ERROR, contains "a b".
func (f filter) String() string {
	var parts []string
	if f.level != "" {
		parts = append(parts, "level "+f.level)
	}
	if f.contains != "" {
		parts = append(parts, fmt.Sprintf("contains %q", f.contains))
	}
	return strings.Join(parts, ", ")
}

// sample reads the head and tail of path the way Inspect does (sampleFile),
// with up to want of its first entries.
func (s *source) sample(ctx context.Context, path string, want int) (FileReport, []Entry, error) {
	sc := &scanner{q: &query{}, format: s.format, tc: logparse.TimeCtx{Loc: s.Location}, ctx: ctx, service: s.service()}
	r, entries, err := sc.sampleFile(path, s.layouts, want)
	r.Ordered = !sc.disordered
	return r, entries, err
}

// spanOf is the earliest and latest time the reports' samples saw; ok is
// false when no sampled line has a time; openEnd says a sample did not
// reach its file's end, so last is only a lower bound.
func spanOf(reports []FileReport) (first, last int64, ok, openEnd bool) {
	first, last = int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range reports {
		if r.FirstTS != "" {
			first, last = min(first, r.first), max(last, r.last)
			openEnd = openEnd || r.openEnd
		}
	}
	return first, last, first <= last, openEnd
}

// sampleFile reads the head (and, for a plain UTF-8 file, the tail) of path
// the way a query_logs call does (byte order mark, UTF-16, the year of
// stamps without one from the file's last write) and reports which of cands
// it reads with and how; up to want of its first entries are returned as
// query_logs shows them.
func (s *scanner) sampleFile(path string, cands []*logparse.Layout, want int) (FileReport, []Entry, error) {
	var rep FileReport
	f, err := os.Open(path)
	if err != nil {
		return rep, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return rep, nil, err
	}
	s.tc.SetRef(max(st.ModTime().UnixNano(), 1))
	s.pathService = logparse.PathService(path)
	var r io.Reader = f
	// a compressed or UTF-16 file is read from its start only
	headOnly := false
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return rep, nil, err
		}
		defer zr.Close()
		r, headOnly = zr, true
	} else if logparse.IsUTF16(magic[:]) {
		headOnly = true
	}
	head, whole, holes, err := s.readHead(logparse.DecodeBOM(r))
	if err != nil {
		return rep, nil, err
	}
	rep.Whole = whole
	rep.NULRuns = holes
	if blank(head) {
		return rep, nil, nil
	}
	if err := s.setup(cands, head); err != nil {
		return rep, nil, err
	}
	rep.Layout = s.lay.Name
	rep.first, rep.last = math.MaxInt64, math.MinInt64
	entries := s.walkSample(head, &rep, want)
	rep.openEnd = !rep.Whole && headOnly
	if !rep.Whole && !headOnly && st.Size() > inspectHead {
		tail := make([]byte, inspectTail)
		n, err := f.ReadAt(tail, st.Size()-inspectTail)
		if err != nil && !errors.Is(err, io.EOF) {
			return rep, nil, err
		}
		tail = tail[:n]
		if k := bytes.IndexByte(tail, '\n'); k >= 0 {
			tail = tail[k+1:]
		}
		rep.NULRuns += nulRuns(tail)
		for i := 0; i < len(tail); {
			line, next := lineAt(tail, i, len(tail))
			if s.lay.ParseLine(line, &s.tc, &s.rec) == logparse.LineTimed {
				rep.first, rep.last = min(rep.first, s.rec.TS), max(rep.last, s.rec.TS)
			}
			i = next
		}
	}
	if rep.first <= rep.last {
		a := newAccumulator(1, s.tc.Loc)
		rep.FirstTS, rep.LastTS = a.ts(rep.first), a.ts(rep.last)
	}
	return rep, entries, nil
}

// readHead reads the sample from r as the search reads lines: whole lines
// while they fit in inspectHead bytes (the first always), each line longer
// than logparse.MaxLineBytes cut to that head (what the search parses of
// it) and its tail read past without being kept, so a first line of
// megabytes of nested JSON is sampled by its head and the lines after it
// are sampled too. whole is false when lines were left unread.
func (s *scanner) readHead(r io.Reader) (head []byte, whole bool, holes int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		if err := s.ctx.Err(); err != nil {
			return nil, false, holes, err
		}
		// a run of NULs at a line start (copytruncate's hole) is read past,
		// as query_logs does, and counted
		n, err := discardNULs(s.ctx, br)
		if n > 0 {
			holes++
		}
		if err == nil {
			line, err = readCapped(s.ctx, br, line[:0], logparse.MaxLineBytes)
		}
		if errors.Is(err, errSampleSkip) {
			// a hole or a line's tail too long to read past: the sample
			// ends before it (with the line's head), the tail sample reads on
			if len(line) > 0 && line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			return append(head, line...), false, holes, nil
		}
		if len(line) > 0 {
			if len(head) > 0 && len(head)+len(line) > inspectHead {
				return head, false, holes, nil
			}
			head = append(head, line...)
			line = line[:0]
		}
		if errors.Is(err, io.EOF) {
			return head, true, holes, nil
		}
		if err != nil {
			return nil, false, holes, err
		}
	}
}

// sampleSkip bounds what a sample reads past without keeping it: a run of
// NULs, a long line's tail. Past it the sample ends (errSampleSkip), so a
// sparse file's 60 GiB hole or one huge line costs a sample 16 MiB, not
// minutes of reading.
const sampleSkip = probeSpan

// errSampleSkip ends a sample at a hole or a line's tail longer than
// sampleSkip.
var errSampleSkip = errors.New("the sample ends at a run longer than it reads past")

// discardNULs reads past the NUL bytes at br's head and says how many
// there were (ending early with ctx's error once the call has ended, and
// with errSampleSkip past sampleSkip of them).
func discardNULs(ctx context.Context, br *bufio.Reader) (int64, error) {
	// most lines start with another byte: look at one before asking for a
	// whole buffer, which would move and refill it at every line
	if b, err := br.Peek(1); err != nil || b[0] != 0 {
		return 0, err
	}
	var n int64
	for {
		if n > sampleSkip {
			return n, errSampleSkip
		}
		b, err := br.Peek(br.Size())
		k := 0
		for k < len(b) && b[k] == 0 {
			k++
		}
		d, _ := br.Discard(k) // k bytes are buffered: never short
		n += int64(d)
		if k < len(b) {
			return n, nil // a byte other than NUL is next
		}
		if err != nil {
			return n, err // the end of the file, or its read error
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
	}
}

// readCapped appends the next line of br (with its newline) to buf, at most
// limit bytes of it: a longer line keeps its head, ended by a newline, and
// the rest is read past up to the next newline (ending early with ctx's
// error once the call has ended, and with errSampleSkip past sampleSkip of
// it). At the end of r it returns io.EOF.
func readCapped(ctx context.Context, br *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if keep := min(len(chunk), limit-n); keep > 0 {
			buf = append(buf, chunk[:keep]...)
		}
		n += len(chunk)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if err := ctx.Err(); err != nil {
				return buf, err
			}
			if n > limit+sampleSkip {
				return buf, errSampleSkip
			}
			continue
		case err != nil:
			return buf, err
		}
		if n > limit {
			buf = append(buf, '\n')
		}
		return buf, nil
	}
}

// walkSample counts the sample's lines, those placed in time and those
// glued to an entry as its continuation, tracks the time range and returns
// up to want of its first timed entries.
func (s *scanner) walkSample(data []byte, rep *FileReport, want int) []Entry {
	var out []Entry
	inEntry := false // a continuation line has an entry to join
	for i := 0; i < len(data); {
		line, next := lineAt(data, i, len(data))
		if len(bytes.TrimSpace(line)) == 0 {
			i = next
			continue
		}
		rep.Lines++
		switch s.lay.ParseLine(line, &s.tc, &s.rec) {
		case logparse.LineTimed:
			inEntry = true
			rep.Placed++
			if s.lay.Each == nil {
				s.noteTime(s.rec.TS)
			}
			rep.first, rep.last = min(rep.first, s.rec.TS), max(rep.last, s.rec.TS)
			if s.lay.Each != nil { // a batch line: every record is an entry
				s.lay.Each(line, &s.tc, &s.rec, func(k logparse.LineKind, r *logparse.Record, _, _ []byte) {
					if k != logparse.LineTimed {
						return
					}
					rep.first, rep.last = min(rep.first, r.TS), max(rep.last, r.TS)
					if len(out) < want {
						a := newAccumulator(1, s.tc.Loc)
						a.add(r, nil, false)
						out = append(out, a.result("", 0, 0).Entries...)
					}
				})
			} else if len(out) < want {
				end := s.entryEnd(data, next, len(data))
				var r logparse.Record
				first, cont, _, _ := s.joined(data, i, end)
				s.parse(first, &r)
				a := newAccumulator(1, s.tc.Loc)
				a.add(&r, data[cont:end], false)
				out = append(out, a.result("", 0, 0).Entries...)
			}
		case logparse.LineUntimed:
			inEntry = true
		case logparse.LineCont:
			if inEntry {
				rep.Glued++
			}
		}
		i = next
	}
	return out
}
