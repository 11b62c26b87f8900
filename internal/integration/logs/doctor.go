package logs

import (
	"context"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// Doctor checks that each log source's globs match files query_logs can
// read and says how they read (layouts, share of sampled lines placed in
// time and glued to an entry as continuation lines, time range), naming the files a call would skip and why (a
// truncated or corrupt gzip, binary data, no recognisable timestamps).
func (Source) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	var out []doctor.Result
	for _, src := range Entries(cfg) {
		name := "logs " + src.Name
		if src.Backend == logtool.BackendVictoriaLogs {
			out = append(out, vlDoctor(ctx, cfg, src))
			continue
		}
		in, err := logtool.Inspect(ctx, src, logtool.InspectOptions{})
		fixHint := "fix or remove the files listed, or narrow the paths (globs) of log source " + src.Name + " in " + cfg.File
		switch {
		case err != nil:
			out = append(out, doctor.Failed(name, err.Error(), "fix the paths of log source "+src.Name+" in "+cfg.File))
		case in.Files == 0:
			out = append(out, doctor.Failed(name, "no file matches "+strings.Join(src.Paths, ", "), "check the paths (globs) of log source "+src.Name+" in "+cfg.File+" and that the files are readable by this user"))
		case !in.Readable():
			out = append(out, doctor.Failed(name, fmt.Sprintf("%d file(s) match, all would be skipped:%s", in.Files, SkippedLines(in)), fixHint))
		case len(in.Skipped) > 0:
			out = append(out, doctor.Warned(name, fmt.Sprintf("%d file(s) match, %d would be skipped%s:%s", in.Files, len(in.Skipped), inspectionSummary(in), SkippedLines(in)), fixHint))
		default:
			out = append(out, doctor.Passed(name, fmt.Sprintf("%d file(s) match%s%s", in.Files, inspectionSummary(in), LimitNote(in))))
		}
	}
	return out
}

// EmptyFile is how doctor and logs inspect say a file holds no line.
const EmptyFile = "empty (no line to read; searched without complaint)"

// maxSkipped bounds the skipped files listed per source.
const maxSkipped = 10

// SkippedLines lists skipped files one per line: path, reason, the error.
func SkippedLines(in logtool.Inspection) string {
	var b strings.Builder
	for i, s := range in.Skipped {
		if i == maxSkipped {
			fmt.Fprintf(&b, "\n  ... and %d more", len(in.Skipped)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s: %s (%v)", s.File, s.Reason, s.Err)
	}
	return b.String() + LimitNote(in)
}

// LimitNote says when the check stopped at the per-call limits, so files
// past that point were not checked.
func LimitNote(in logtool.Inspection) string {
	if len(in.TruncatedBy) == 0 {
		return ""
	}
	return "\n  (checked within the per-call limits; stopped by " + strings.Join(in.TruncatedBy, ", ") + ": later files not checked)"
}

// PlacedShare prints "n of m lines (p%)".
func PlacedShare(placed, lines int) string {
	if lines == 0 {
		return "0 of 0 lines"
	}
	return fmt.Sprintf("%d of %d lines (%.1f%%)", placed, lines, 100*float64(placed)/float64(lines))
}

// NotInOrder is how doctor and logs inspect say a file was found out of
// time order, and what query_logs does about it.
const NotInOrder = "not in time order (searched in full)"

// GluedShare says how many lines were glued to the entry before them as
// continuation lines, ", n (p%) glued as continuation lines", or "" when
// none: a source that is largely continuation text shows it.
func GluedShare(glued, lines int) string {
	if glued == 0 || lines == 0 {
		return ""
	}
	return fmt.Sprintf(", %d (%.1f%%) glued as continuation lines", glued, 100*float64(glued)/float64(lines))
}

// inspectionSummary is doctor's per-source detail: layouts with their file
// counts, the share of sampled lines placed in time and glued as
// continuation lines, the files not in time order, the time range, and the
// empty files.
func inspectionSummary(in logtool.Inspection) string {
	empty := ""
	if len(in.Empty) > 0 {
		empty = fmt.Sprintf("; %d file(s) %s", len(in.Empty), EmptyFile)
	}
	if len(in.Reports) == 0 {
		return empty
	}
	count := map[string]int{}
	var order []string
	lines, placed, glued, unordered := 0, 0, 0, 0
	for _, r := range in.Reports {
		if count[r.Layout] == 0 {
			order = append(order, r.Layout)
		}
		count[r.Layout]++
		lines += r.Lines
		placed += r.Placed
		glued += r.Glued
		if !r.Ordered {
			unordered++
		}
	}
	parts := make([]string, len(order))
	for i, l := range order {
		parts[i] = fmt.Sprintf("%s (%d)", l, count[l])
	}
	s := "; layout " + strings.Join(parts, ", ") + "; " + PlacedShare(placed, lines) + " placed in time" + GluedShare(glued, lines)
	if unordered > 0 {
		s += fmt.Sprintf("; %d file(s) %s", unordered, NotInOrder)
	}
	if in.FirstTS != "" {
		s += "; " + in.FirstTS + " .. " + in.LastTS
	}
	return s + empty
}
