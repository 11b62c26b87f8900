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
	"github.com/superbiz/superbiz/pkg/redact"
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

// Freeze freezes each log source the run read: of each of its files, the
// lines from frozen.Margin before the earliest window the run queried to
// frozen.Margin after the latest, as written (a gzip file is written
// unpacked), each entry through redaction, with the source's layout
// configuration.
func (Source) Freeze(ctx context.Context, p *frozen.Pack) error {
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
	for _, name := range names {
		i := slices.IndexFunc(p.Config.Logs, func(s config.LogSource) bool { return s.Name == name })
		if i < 0 {
			return p.Gone("log source", name)
		}
		lo, hi := spans[name].Widened()
		if err := freezeSource(ctx, p, p.Config.Logs[i], lo, hi); err != nil {
			return err
		}
	}
	return nil
}

func freezeSource(ctx context.Context, p *frozen.Pack, src config.LogSource, lo, hi time.Time) error {
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
	lines, written := 0, 0
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
		n, err := freezeFile(p, f, filepath.Join(dir, rel), cands, loc, lo, hi)
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
		lines += n
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

// freezeFile writes the entries of the log file src whose time lies in
// [lo, hi] to dst, each redacted, and returns how many lines it wrote. An
// entry's continuation lines go with it; the file keeps its modification
// time, which places stamps that carry no year.
func freezeFile(p *frozen.Pack, src, dst string, cands []*logparse.Layout, loc *time.Location, lo, hi time.Time) (int, error) {
	st, err := os.Stat(src)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", src, err)
		}
		defer gz.Close()
		r = gz
	}
	in := bufio.NewReaderSize(logparse.DecodeBOM(r), 64<<10)
	var head [][]byte
	for len(head) < sampleLines {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			head = append(head, line)
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
		return 0, errNoTime
	}
	var out, entry bytes.Buffer
	keep, lines, entryLines := false, 0, 0
	flush := func() {
		if keep && entry.Len() > 0 {
			out.WriteString(redact.KeepControls(entry.String()))
			lines += entryLines
		}
		entry.Reset()
		entryLines = 0
	}
	var rec logparse.Record
	loNS, hiNS := lo.UnixNano(), hi.UnixNano()
	take := func(raw []byte) {
		line := trimEOL(raw)
		switch layout.ParseLine(line[:min(len(line), layout.LineCap())], tc, &rec) {
		case logparse.LineTimed:
			flush()
			keep = rec.TS >= loNS && rec.TS <= hiNS
		case logparse.LineUntimed:
			flush()
		}
		entry.Write(raw)
		if !bytes.HasSuffix(raw, []byte("\n")) {
			entry.WriteByte('\n')
		}
		entryLines++
	}
	for _, l := range head {
		take(l)
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			take(line)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", src, err)
		}
	}
	flush()
	if err := p.WriteFile(dst, out.Bytes()); err != nil {
		return 0, err
	}
	if err := os.Chtimes(dst, st.ModTime(), st.ModTime()); err != nil {
		return 0, fmt.Errorf("eval pack: %w", err)
	}
	return lines, nil
}

// trimEOL is a line without its newline and carriage return.
func trimEOL(b []byte) []byte {
	return bytes.TrimRight(b, "\r\n")
}

// zoneName is the source's timezone as the pack writes it: "Local" means
// the zone of whichever machine runs the pack, so it is written as the
// name of this machine's zone ($TZ, /etc/localtime), or UTC with a note
// saying so when the zone has no name to give.
func zoneName(src config.LogSource, getenv func(string) string) (string, string) {
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
