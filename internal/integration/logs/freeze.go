package logs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/pkg/egress"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// PackDir is the pack folder the frozen log files are written under, one
// sub-folder per source.
const PackDir = "logs"

// logFile is one [[logs]] entry of the pack's superbiz.toml: the source's
// name and layout as configured, its paths the pack's own.
type logFile struct {
	Name       string   `toml:"name"`
	Paths      []string `toml:"paths"`
	Format     string   `toml:"format"`
	Pattern    string   `toml:"pattern,omitempty"`
	TimeLayout string   `toml:"time_layout,omitempty"`
	Timezone   string   `toml:"timezone"`
	Service    string   `toml:"service,omitempty"`
	MaxWindow  string   `toml:"max_window"`
}

// Freezes is query_logs.
func (Source) Freezes() []string { return []string{logtool.ToolName} }

// Freeze freezes each log source the run read: a victorialogs source as
// the recording of the run's calls on it (freezeRecorded); of each file of
// a files source, the
// lines from frozen.Margin before the earliest window the run queried to
// frozen.Margin after the latest, as written (a gzip file is written
// unpacked), each entry through redaction, with the source's layout
// configuration.
func (s Source) Freeze(ctx context.Context, p *frozen.Pack) error {
	spans := map[string]*frozen.Span{}
	var names []string
	for _, inv := range p.Calls(logtool.ToolName) {
		res, ok, err := frozen.Result[logtool.Result](inv)
		if err != nil {
			return err
		}
		if !ok || res.Source == "" {
			continue
		}
		lo, err1 := time.Parse(time.RFC3339Nano, res.Window.Start)
		hi, err2 := time.Parse(time.RFC3339Nano, res.Window.End)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("eval pack: call %s read the log source %s over a window that does not read (%q to %q)", inv.ToolCallID, res.Source, res.Window.Start, res.Window.End)
		}
		if spans[res.Source] == nil {
			spans[res.Source] = &frozen.Span{}
			names = append(names, res.Source)
		}
		spans[res.Source].Add(lo, hi)
	}
	var recorded []string
	srcs := Entries(p.Config)
	for _, name := range names {
		i := slices.IndexFunc(srcs, func(s logtool.Source) bool { return s.Name == name })
		if i < 0 {
			return p.Gone("log source", name)
		}
		if srcs[i].Backend == logtool.BackendVictoriaLogs {
			recorded = append(recorded, name)
			continue
		}
		lo, hi := spans[name].Widened()
		if err := freezeSource(ctx, p, srcs[i], lo, hi); err != nil {
			return err
		}
	}
	return s.freezeRecorded(p, recorded)
}

func freezeSource(ctx context.Context, p *frozen.Pack, src logtool.Source, lo, hi time.Time) error {
	_, cands, err := logparse.LayoutsFor(string(src.Format), src.Pattern, src.TimeLayout)
	if err != nil {
		return fmt.Errorf("eval pack: log source %s: %w", src.Name, err)
	}
	loc := src.Location
	if loc == nil {
		loc = time.UTC
	}
	files, err := logtool.Files(src.Paths)
	if err != nil {
		return fmt.Errorf("eval pack: log source %s: %w", src.Name, err)
	}
	dir := p.Path(PackDir, src.Name)
	common := commonDir(files)
	var globs []string
	lines, written, cut := 0, 0, 0
	var skipped []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(common, f)
		if err != nil {
			return fmt.Errorf("eval pack: log source %s: %w", src.Name, err)
		}
		rel = strings.TrimSuffix(rel, ".gz")
		ff, err := freezeFile(ctx, p, f, filepath.Join(dir, rel), cands, loc, lo, hi)
		switch {
		case errors.Is(err, errNoTime):
			skipped = append(skipped, filepath.Base(f)+" (no line placed in time)")
			continue
		case err != nil:
			return fmt.Errorf("eval pack: log source %s: %w", src.Name, err)
		}
		if g := path.Join(PackDir, src.Name, filepath.ToSlash(filepath.Dir(rel)), "*"); !slices.Contains(globs, g) {
			globs = append(globs, g)
		}
		lines += ff.lines
		cut += ff.cut
		written++
	}
	if written == 0 {
		// The folder must exist for the source to load; it holds no file.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("eval pack: %w", err)
		}
		globs = []string{path.Join(PackDir, src.Name, "*")}
	}
	zone, zoneNote := zoneName(src, p.Getenv)
	p.Append("logs", logFile{
		Name: src.Name, Paths: globs, Format: string(src.Format),
		Pattern: src.Pattern, TimeLayout: src.TimeLayout, Timezone: zone,
		Service: src.Service, MaxWindow: config.FormatDuration(src.MaxWindow),
	})
	line := fmt.Sprintf("logs %s: %d file(s), %d line(s) from %s to %s", src.Name, written, lines, lo.UTC().Format(time.RFC3339), hi.UTC().Format(time.RFC3339))
	if cut > 0 {
		line += fmt.Sprintf("; %d entr(ies) longer than %d MiB kept to their first %d MiB", cut, MaxEntryBytes>>20, MaxEntryBytes>>20)
	}
	if len(skipped) > 0 {
		line += "; not frozen: " + strings.Join(skipped, ", ")
	}
	if zoneNote != "" {
		line += "; " + zoneNote
	}
	p.Frozen("%s", line)
	return nil
}

// commonDir is the deepest folder holding every file of files.
func commonDir(files []string) string {
	if len(files) == 0 {
		return ""
	}
	dir := filepath.Dir(files[0])
	for _, f := range files[1:] {
		for !strings.HasPrefix(f, dir+string(filepath.Separator)) && dir != filepath.Dir(dir) {
			dir = filepath.Dir(dir)
		}
	}
	return dir
}

// errNoTime is a file in which no sampled line could be placed in time.
var errNoTime = errors.New("no line placed in time")

// sampleLines is how many first lines pick a file's layout.
const sampleLines = logparse.DetectHeadLines

// MaxEntryBytes bounds one frozen entry (its line and continuation lines):
// a longer one keeps its first MaxEntryBytes, and the rest is read and
// dropped, so a file of any size, a gzip bomb or a line with no end is
// frozen through bounded memory. It is query_logs' longest line (an
// otlp_batch line of 16 MiB).
const MaxEntryBytes = 16 << 20

// frozenFile is what freezeFile wrote of one file.
type frozenFile struct {
	lines int // lines written
	cut   int // entries cut at MaxEntryBytes
}

// freezeFile writes the entries of the log file src whose time lies in
// [lo, hi] to dst, each through the egress policy, reading and writing
// as it goes (at most MaxEntryBytes held). An entry's continuation lines
// go with it; the file keeps its modification time, which places stamps
// that carry no year.
func freezeFile(ctx context.Context, p *frozen.Pack, src, dst string, cands []*logparse.Layout, loc *time.Location, lo, hi time.Time) (frozenFile, error) {
	var res frozenFile
	st, err := os.Stat(src)
	if err != nil {
		return res, err
	}
	f, err := os.Open(src)
	if err != nil {
		return res, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return res, fmt.Errorf("%s: %w", src, err)
		}
		defer gz.Close()
		r = gz
	}
	in := &lineReader{r: bufio.NewReaderSize(logparse.DecodeBOM(r), 64<<10), max: MaxEntryBytes}
	// The head picks the layout: at most sampleLines lines, and no more
	// than MaxEntryBytes of them held.
	var (
		head    [][]byte
		headCut []bool
		held    int
	)
	for len(head) < sampleLines && held < MaxEntryBytes {
		line, err := in.next()
		if len(line) > 0 {
			head, headCut = append(head, bytes.Clone(line)), append(headCut, in.cut)
			held += len(line)
		}
		if err != nil {
			break
		}
	}
	tc := &logparse.TimeCtx{Loc: loc}
	tc.SetRef(st.ModTime().UnixNano())
	sample := make([][]byte, len(head))
	for i, l := range head {
		sample[i] = trimEOL(l)
	}
	layout, ok := logparse.DetectLayout(sample, tc, cands, nil)
	if !ok {
		return res, errNoTime
	}
	out, err := p.Create(dst)
	if err != nil {
		return res, err
	}
	defer out.Close()
	var entry []byte
	keep, entryLines, entryCut := false, 0, false
	var werr error
	flush := func() {
		if keep && len(entry) > 0 && werr == nil {
			if entry[len(entry)-1] != '\n' {
				entry = append(entry, '\n')
			}
			werr = out.Write(egress.Mask(string(entry)))
			res.lines += entryLines
			if entryCut {
				res.cut++
			}
		}
		entry, entryLines, entryCut = entry[:0], 0, false
	}
	var rec logparse.Record
	loNS, hiNS := lo.UnixNano(), hi.UnixNano()
	take := func(raw []byte, cut bool) {
		line := trimEOL(raw)
		switch layout.ParseLine(line[:min(len(line), layout.LineCap())], tc, &rec) {
		case logparse.LineTimed:
			flush()
			keep = rec.TS >= loNS && rec.TS <= hiNS
		case logparse.LineUntimed:
			flush()
		}
		entryLines++
		if !keep {
			return // an entry outside the window is not held
		}
		if room := MaxEntryBytes - len(entry); len(raw) > room || cut {
			raw, entryCut = raw[:min(len(raw), max(room, 0))], true
		}
		if len(entry) > 0 && entry[len(entry)-1] != '\n' && !entryCut {
			entry = append(entry, '\n')
		}
		entry = append(entry, raw...)
	}
	for i, l := range head {
		take(l, headCut[i])
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
		}
		line, err := in.next()
		if len(line) > 0 {
			take(line, in.cut)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", src, err)
		}
	}
	flush()
	if werr != nil {
		return res, werr
	}
	if err := out.Close(); err != nil {
		return res, err
	}
	if err := os.Chtimes(dst, st.ModTime(), st.ModTime()); err != nil {
		return res, fmt.Errorf("eval pack: %w", err)
	}
	return res, nil
}

// lineReader reads lines of at most max bytes: a longer line's head is
// returned (cut says so) and its rest is read and dropped.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
	cut bool
}

// next is the next line with its newline (none at the end of the input,
// or after a cut line's head); the slice is valid until the next call.
func (l *lineReader) next() ([]byte, error) {
	l.buf, l.cut = l.buf[:0], false
	for {
		frag, err := l.r.ReadSlice('\n')
		if room := l.max - len(l.buf); len(frag) > room {
			l.buf, l.cut = append(l.buf, frag[:room]...), true
		} else {
			l.buf = append(l.buf, frag...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return l.buf, err
		}
	}
}

// trimEOL is a line without its newline and carriage return.
func trimEOL(b []byte) []byte {
	return bytes.TrimRight(b, "\r\n")
}

// zoneName is the source's timezone as the pack writes it: "Local" means
// the zone of whichever machine runs the pack, so it is written as the
// name of this machine's zone ($TZ, /etc/localtime), or UTC with a note
// saying so when the zone has no name to give.
func zoneName(src logtool.Source, getenv func(string) string) (string, string) {
	if src.Timezone != "" && src.Timezone != "Local" {
		return src.Timezone, ""
	}
	if getenv != nil {
		if tz := strings.TrimPrefix(getenv("TZ"), ":"); tz != "" {
			if _, err := time.LoadLocation(tz); err == nil {
				return tz, ""
			}
		}
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			if _, err := time.LoadLocation(name); err == nil {
				return name, ""
			}
		}
	}
	if _, off := time.Now().Zone(); off == 0 {
		return "UTC", ""
	}
	return "UTC", "timezone Local has no zone name here: written as UTC, correct it in superbiz.toml"
}
