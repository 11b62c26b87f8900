package logs

import (
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
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

// layout is one line syntax a file may be written in.
type layout struct {
	// name is shown in doctor, logs inspect and test failures.
	name string
	// parse reads one line (without its newline or trailing CR) into r, which
	// parseLine has reset, and says what the line is to the entry structure.
	parse func(line []byte, tc *timeCtx, r *record) lineKind
	// each, for layouts that hold many records per line (otlp_batch), yields
	// every record of a line and returns how many were cut by its bound;
	// parse then reads a line's first record. nil for one record per line.
	each func(line []byte, tc *timeCtx, r *record, yield batchYield) int
}

// parseLine resets r and parses line under l.
func (l *layout) parseLine(line []byte, tc *timeCtx, r *record) lineKind {
	r.reset()
	return l.parse(line, tc, r)
}

// Names of the built-in layouts, as doctor and the tests see them.
const (
	layoutJSON      = "json"
	layoutOTLPBatch = "otlp_batch"
	layoutLogfmt    = "logfmt"
	layoutSyslog    = "syslog"
	layoutRAS       = "ras"
	layoutHPC       = "hpc"
	layoutGlog      = "glog"
	layoutLogcat    = "logcat"
	layoutAccess    = "access"
	layoutApacheErr = "apache_error"
	layoutCBS       = "cbs"
	layoutFileDated = "file_prefixed"
	layoutHDFS      = "hdfs"
	layoutSpark     = "spark"
	layoutCompact   = "compact"
	layoutMonthDay  = "month_day"
	layoutText      = "text"
	// layoutCustom is a source's own layout (format custom, custom.go).
	layoutCustom = "custom"
)

// builtinLayouts is every built-in layout in detection order: structured
// ones, then text layouts from the most specific to the general ISO text.
func builtinLayouts() []*layout {
	return []*layout{
		{name: layoutJSON, parse: parseJSON},
		{name: layoutOTLPBatch, parse: parseOTLPBatch, each: eachOTLPBatch},
		{name: layoutLogfmt, parse: parseLogfmt},
		{name: layoutRAS, parse: parseRAS},
		{name: layoutHPC, parse: parseHPC},
		{name: layoutSyslog, parse: parseSyslog},
		{name: layoutGlog, parse: parseGlog},
		{name: layoutLogcat, parse: parseLogcat},
		{name: layoutAccess, parse: parseAccess},
		{name: layoutApacheErr, parse: parseApacheError},
		{name: layoutCBS, parse: parseCBS},
		{name: layoutFileDated, parse: parseFileDated},
		{name: layoutHDFS, parse: parseHDFS},
		{name: layoutSpark, parse: parseSpark},
		{name: layoutCompact, parse: parseCompact},
		{name: layoutMonthDay, parse: parseMonthDay},
		{name: layoutText, parse: parseText},
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

// layoutsFor maps a source's configured format to its canonical name and
// the layouts detection chooses among: auto is all the built-in ones, text
// every one but json, otlp_batch and logfmt, json both JSON layouts (one
// record or a collector batch per line), logfmt itself only, custom the
// source's own layout (compiled from its pattern and time_layout) only.
func layoutsFor(src config.LogSource) (string, []*layout, error) {
	all := builtinLayouts()
	switch strings.ToLower(strings.TrimSpace(string(src.Format))) {
	case "", "auto":
		return formatAuto, all, nil
	case "json", "jsonl", "ndjson":
		return formatJSON, all[:2], nil
	case "logfmt":
		return formatLogfmt, all[2:3], nil
	case "text", "plain":
		return formatText, all[3:], nil
	case "custom":
		l, err := newCustomLayout(src.Pattern, src.TimeLayout)
		if err != nil {
			return "", nil, err
		}
		return formatCustom, []*layout{l}, nil
	}
	return "", nil, fmt.Errorf("unknown log format %q: use json, logfmt, text, custom or auto", src.Format)
}

// triedLayouts says what a file in which no line could be placed in time
// was read with, for the skip's error: the configured format and, when it
// has several, the layouts it tried (format is "" when unknown: tests).
func triedLayouts(format string, cands []*layout) string {
	if len(cands) == 1 && cands[0].name == layoutCustom {
		return "tried format custom: no line matches the source's pattern with a ts group that parses with its time_layout"
	}
	names := make([]string, len(cands))
	for i, l := range cands {
		names[i] = l.name
	}
	switch {
	case format == "":
		return "tried layouts " + strings.Join(names, ", ")
	case len(cands) == 1:
		return "tried format " + format
	}
	return "tried format " + format + ": layouts " + strings.Join(names, ", ")
}

// layoutByName returns the built-in layout called name (tests, fuzzing).
func layoutByName(name string) *layout {
	for _, l := range builtinLayouts() {
		if l.name == name {
			return l
		}
	}
	return nil
}

// detectSample bounds what detection parses: lines from the file's start
// and from evenly spaced points after it; when none of them has a time,
// the first timed line within detectScanBytes (however long the untimed
// header before it) and the same samples from there.
const (
	detectScanBytes  = 16 << 20
	detectHeadBytes  = 256 << 10
	detectHeadLines  = 200
	detectProbes     = 8
	detectProbeLines = 8
)

// detectLayout picks among cands the layout under which the most sample
// lines start a timed entry (ties go to the earlier candidate); ok is false
// when no line of the sample has a time under any of them.
func detectLayout(sample [][]byte, tc *timeCtx, cands []*layout) (*layout, bool) {
	var r record
	var best *layout
	bestN := 0
	for _, l := range cands {
		n := 0
		for _, line := range sample {
			if l.parseLine(line, tc, &r) == lineTimed {
				n++
			}
		}
		if n > bestN {
			best, bestN = l, n
		}
	}
	return best, bestN > 0
}
