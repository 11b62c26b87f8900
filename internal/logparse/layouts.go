package logparse

import (
	"fmt"
	"strings"
)

// This file is the registry of line layouts: the one place that says which
// syntaxes a log file may be written in and how `format = "auto"` picks one
// per file. A layout is a name and a parse function that turns one line into
// the shared record (time, level, service, message, fields) and says whether
// the line starts an entry with a time, one without, or continues the entry
// before it. Detection parses a sample of the file under every candidate and
// keeps the one that places the most lines in time (earlier candidates win
// ties, so specific layouts are listed before general ones). A source with
// format = "custom" reads with its own layout (custom.go), the one candidate.

// Layout is one line syntax a file may be written in.
type Layout struct {
	// Name is shown in doctor, logs inspect and test failures.
	Name string
	// Parse reads one line (without its newline or trailing CR) into r, which
	// parseLine has reset, and says what the line is to the entry structure.
	Parse func(line []byte, tc *TimeCtx, r *Record) LineKind
	// Each, for layouts that hold many records per line (otlp_batch), yields
	// every record of a line and returns how many were cut by its bound;
	// parse then reads a line's first record. nil for one record per line.
	Each func(line []byte, tc *TimeCtx, r *Record, yield BatchYield) int
	// Wrapped says the layout is a container runtime's wrapper of the
	// line a container wrote: its service is the container the file's path
	// names (PathService).
	Wrapped bool
	// Partial, when set, reports whether a line is the part of a longer
	// line that the next line continues (CRI tag P), and Join turns an
	// entry that starts with such parts into the one line they make (nil
	// when its first line is no part).
	Partial func(line []byte) bool
	Join    func(entry []byte) []byte
	// Shape, when set, reports whether a line starts like an entry of the
	// layout though its stamp is not at the line's start (HPC's epoch in
	// the fifth column, RAS's after the alert tag): such a line the layout
	// cannot read is an unplaced entry, as a line starting with a stamp is
	// (StampLike).
	Shape func(line []byte) bool
	// Learn, when set, turns the layout into the one a file is read with
	// from the detection sample (the general reader learns which columns
	// hold the stamp and the level); DetectLayout calls it on its choice.
	Learn func(sample [][]byte, tc *TimeCtx) *Layout
	// Cap, when set, is how much of a line the layout parses instead of
	// MaxLineBytes (docker json-file: MaxDockerLineBytes).
	Cap int
	// LevelNext, when set, reads an entry's level from the line after its
	// stamp line (java.util.logging's "SEVERE: msg") when the stamp line
	// gave none.
	LevelNext func(next []byte) string
}

// ParseLine resets r and parses line under l. The continuation rule is
// strict: a line the layout does not read as a record but that starts with
// a stamp (StampLike) is an entry of its own without a readable time, never
// text glued to the entry before it, so a stamp the layout cannot read is
// counted as unparsed instead of silently swallowed.
func (l *Layout) ParseLine(line []byte, tc *TimeCtx, r *Record) LineKind {
	r.reset()
	k := l.Parse(line, tc, r)
	if k == LineCont && !r.attached && (StampLike(line) || l.Shape != nil && l.Shape(line)) {
		r.reset()
		return LineUntimed
	}
	return k
}

// StampLike reports whether line starts (after an optional '[') with what
// can only be a date or a clock: three or more digit groups joined by single
// separators (- / : . T , or a blank), with two ':' (a clock) or a first
// group of four or more digits before a '-' or '/' (a date). An IP address
// ("10.0.0.1", "10.0.0.1:8080"), a version or a count is not.
func StampLike(line []byte) bool {
	i := 0
	if i < len(line) && line[i] == '[' {
		i++
	}
	groups, colons, first := 0, 0, 0
	dated := false
	for {
		end := digitsEnd(line, i)
		if end == i {
			break
		}
		if groups == 0 {
			first = end - i
		}
		groups++
		i = end
		if i+1 >= len(line) || !isDigit(line[i+1]) {
			break
		}
		switch line[i] {
		case ':':
			colons++
		case '-', '/':
			dated = dated || (groups == 1 && first >= 4)
		case '.', 'T', ',', ' ':
		default:
			return groups >= 3 && (colons >= 2 || dated)
		}
		i++
	}
	return groups >= 3 && (colons >= 2 || dated)
}

// Names of the built-in layouts, as doctor and the tests see them.
const (
	LayoutDocker    = "docker_json"
	LayoutJSON      = "json"
	LayoutOTLPBatch = "otlp_batch"
	LayoutLogfmt    = "logfmt"
	LayoutCRI       = "cri"
	LayoutSyslog    = "syslog"
	LayoutRAS       = "ras"
	LayoutHPC       = "hpc"
	LayoutGlog      = "glog"
	LayoutLogcat    = "logcat"
	LayoutAccess    = "access"
	LayoutApacheErr = "apache_error"
	LayoutCBS       = "cbs"
	LayoutFileDated = "file_prefixed"
	LayoutHDFS      = "hdfs"
	LayoutSpark     = "spark"
	LayoutCompact   = "compact"
	LayoutMonthDay  = "month_day"
	LayoutText      = "text"
	LayoutGunicorn  = "gunicorn"
	LayoutRuby      = "ruby_logger"
	LayoutPostgres  = "postgres"
	LayoutRedis     = "redis"
	LayoutElastic   = "elasticsearch"
	LayoutLambda    = "lambda"
	LayoutEnvoy     = "envoy"
	LayoutMySQL     = "mysql"
	// LayoutGeneral is the general reader (general.go): a stamp anywhere
	// in a line's head, a level word near it, columns learned per file.
	LayoutGeneral = "general"
	// LayoutCustom is a source's own layout (format custom, custom.go).
	LayoutCustom = "custom"
)

// BuiltinLayouts is every built-in layout in detection order: structured
// ones (the docker json-file wrapper before plain JSON, the CRI wrapper
// before logfmt, which would read a wrapped logfmt line's own ts), then text
// layouts from the most specific to the general ISO text.
func BuiltinLayouts() []*Layout {
	return []*Layout{
		{Name: LayoutDocker, Parse: parseDockerJSON, Wrapped: true, Partial: dockerPartial, Join: dockerJoin, Cap: MaxDockerLineBytes},
		{Name: LayoutJSON, Parse: parseJSON},
		{Name: LayoutOTLPBatch, Parse: parseOTLPBatch, Each: eachOTLPBatch},
		{Name: LayoutCRI, Parse: parseCRI, Wrapped: true, Partial: criPartial, Join: criJoin},
		{Name: LayoutLogfmt, Parse: parseLogfmt},
		{Name: LayoutRAS, Parse: parseRAS, Shape: rasShape},
		{Name: LayoutHPC, Parse: parseHPC, Shape: hpcShape},
		{Name: LayoutSyslog, Parse: parseSyslog},
		{Name: LayoutGlog, Parse: parseGlog},
		{Name: LayoutPostgres, Parse: parsePostgres},
		{Name: LayoutMySQL, Parse: parseMySQL},
		{Name: LayoutLambda, Parse: parseLambda},
		{Name: LayoutEnvoy, Parse: parseEnvoy},
		{Name: LayoutGunicorn, Parse: parseGunicorn},
		{Name: LayoutRuby, Parse: parseRubyLogger},
		{Name: LayoutRedis, Parse: parseRedis},
		{Name: LayoutElastic, Parse: parseElasticsearch},
		{Name: LayoutLogcat, Parse: parseLogcat},
		{Name: LayoutAccess, Parse: parseAccess},
		{Name: LayoutApacheErr, Parse: parseApacheError},
		{Name: LayoutCBS, Parse: parseCBS},
		{Name: LayoutFileDated, Parse: parseFileDated},
		{Name: LayoutHDFS, Parse: parseHDFS},
		{Name: LayoutSpark, Parse: parseSpark},
		{Name: LayoutCompact, Parse: parseCompact},
		{Name: LayoutMonthDay, Parse: parseMonthDay},
		{Name: LayoutText, Parse: parseText},
		newGeneralLayout(),
	}
}

// Configured format names, canonical spellings.
const (
	formatAuto   = "auto"
	formatJSON   = "json"
	formatLogfmt = "logfmt"
	formatText   = "text"
	formatCustom = "custom"
)

// LayoutsFor maps a source's configured format to its canonical name and
// the layouts detection chooses among: auto is all the built-in ones, text
// every one but the JSON layouts and logfmt (the CRI wrapper included), json the three JSON layouts
// (docker's wrapper, one record or a collector batch per line), logfmt
// itself only, custom the
// source's own layout (compiled from its pattern and time_layout) only.
func LayoutsFor(format, pattern, timeLayout string) (string, []*Layout, error) {
	all := BuiltinLayouts()
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "auto":
		return formatAuto, all, nil
	case "json", "jsonl", "ndjson":
		return formatJSON, all[:3], nil
	case "logfmt":
		return formatLogfmt, all[4:5], nil
	case "text", "plain":
		return formatText, append(all[3:4], all[5:]...), nil
	case "custom":
		l, err := newCustomLayout(pattern, timeLayout)
		if err != nil {
			return "", nil, err
		}
		return formatCustom, []*Layout{l}, nil
	}
	return "", nil, fmt.Errorf("unknown log format %q: use json, logfmt, text, custom or auto", format)
}

// TriedLayouts says what a file in which no line could be placed in time
// was read with, for the skip's error: the configured format and, when it
// has several, the layouts it tried (format is "" when unknown: tests).
func TriedLayouts(format string, cands []*Layout) string {
	if len(cands) == 1 && cands[0].Name == LayoutCustom {
		return "tried format custom: no line matches the source's pattern with a ts group that parses with its time_layout"
	}
	names := make([]string, len(cands))
	for i, l := range cands {
		names[i] = l.Name
	}
	switch {
	case format == "":
		return "tried layouts " + strings.Join(names, ", ")
	case len(cands) == 1:
		return "tried format " + format
	}
	return "tried format " + format + ": layouts " + strings.Join(names, ", ")
}

// LayoutByName returns the built-in layout called name (tests, fuzzing).
func LayoutByName(name string) *Layout {
	for _, l := range BuiltinLayouts() {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// Bounds of one line, shared by detection and the search so both judge a
// line by the same head: a line longer than MaxLineBytes is parsed by its
// head (a custom regexp included, so its work per line is bounded); a batch
// layout's line (one OTLP request of many records) by a longer head,
// MaxBatchLineBytes, in a linear JSON walk.
const (
	MaxLineBytes      = 64 << 10
	MaxBatchLineBytes = 16 << 20
)

// MaxJoinedBytes bounds the entry a layout joins from parts (Layout.Join:
// CRI lines tagged P up to the closing F): its first MaxJoinedBytes are
// joined and read whole, in plain and compressed files alike; the parts
// past them are skipped as part of the same entry, which says it was cut.
const MaxJoinedBytes = 16 << 20

// LineCap is how much of a line l parses: MaxBatchLineBytes for a batch
// layout, its Cap when set, MaxLineBytes for the others.
func (l *Layout) LineCap() int {
	switch {
	case l.Each != nil:
		return MaxBatchLineBytes
	case l.Cap > 0:
		return l.Cap
	}
	return MaxLineBytes
}

// detectSample bounds what detection parses: lines from the file's start
// and from evenly spaced points after it; when none of them has a time,
// the first timed line within DetectScanBytes (however long the untimed
// header before it) and the same samples from there. A sampled line is
// taken whole up to the longest head a layout parses.
const (
	DetectScanBytes  = MaxBatchLineBytes
	DetectHeadBytes  = 256 << 10
	DetectHeadLines  = 200
	DetectProbes     = 8
	DetectProbeLines = 8
)

// DetectLayout picks among cands the layout under which the most sample
// lines start a timed entry or carry more of one (ties go to the earlier candidate), each line
// cut to the head the layout parses; ok is false when no line of the
// sample has a time under any of them, or when stop (asked before each
// line: a custom regexp over long heads takes a while) says the caller has
// ended.
func DetectLayout(sample [][]byte, tc *TimeCtx, cands []*Layout, stop func() bool) (*Layout, bool) {
	var r Record
	var best *Layout
	bestN, bestLv := 0, 0
	for _, l := range cands {
		if l.Learn != nil {
			// judged by the columns it learns from the sample
			l = l.Learn(sample, tc)
		}
		n, lv := 0, 0
		for _, line := range sample {
			if stop != nil && stop() {
				return nil, false
			}
			// a stamped line that carries more of the entry before it
			// (PostgreSQL's DETAIL) counts as placed too
			if k := l.ParseLine(line[:min(len(line), l.LineCap())], tc, &r); k == LineTimed || k == LineCont && r.attached {
				n++
				if r.Level != "" {
					lv++
				}
			}
		}
		// the general reader (last) also wins a tie in which it reads the
		// level of more lines
		if n > bestN || l.Name == LayoutGeneral && n == bestN && lv > bestLv {
			best, bestN, bestLv = l, n, lv
		}
	}
	return best, bestN > 0
}
