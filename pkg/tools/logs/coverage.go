package logs

import (
	"context"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/tools"
)

// Coverage is what a query_logs window held before the filters
// (docs/SPEC.md#query_logs): a window without any entry is missing data,
// never evidence that something did not happen.
type Coverage struct {
	// Coverage is "none" when the window held no entry at all, "partial" when
	// it held entries the filters could not judge (tools.CoveragePartial),
	// "data" otherwise.
	Coverage string `json:"coverage"`
	// InWindow counts the entries read inside the window before the level
	// and service filters (with contains, only entries holding its rarest
	// word are read).
	InWindow int `json:"in_window"`
	// SourceFirst and SourceLast are the source's first and last entry
	// times, as `logs inspect` samples them ("" when no entry has a time;
	// SourceLast also when a compressed file's end was not sampled).
	SourceFirst string `json:"source_first,omitempty"`
	SourceLast  string `json:"source_last,omitempty"`
}

// coverageData is the coverage of a window that held entries.
const coverageData = "data"

// coverage states what the window [start, end] held in the readable files
// and, when it held nothing, the one-line account of the empty window that
// keeps a negative from citing it. The window held nothing when no entry
// matched or was read in it and either the source's range lies outside it
// (or has no timed entry) or, without contains, the whole window was read.
func coverage(ctx context.Context, src *source, files []string, q *query, acc *accumulator, res *Result) (string, error) {
	start, end := q.startNS, q.endNS
	var reports []FileReport
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		r, err := src.span(ctx, f)
		if err != nil {
			continue // the scan skipped it or it changed since: not part of the range
		}
		reports = append(reports, r)
	}
	first, last, ok, openEnd := spanOf(reports)
	res.Coverage = Coverage{Coverage: coverageData, InWindow: acc.inWindow}
	if ok {
		res.SourceFirst = acc.ts(first)
		if !openEnd {
			res.SourceLast = acc.ts(last)
		}
	}
	if account := partialAccount(src.Name, q, res); account != "" {
		res.Coverage.Coverage = tools.CoveragePartial
		if res.Matched > 0 {
			return "", nil
		}
		return account, nil
	}
	if res.Matched > 0 || acc.inWindow > 0 {
		return "", nil
	}
	outside := !ok || first > end || (last < start && !openEnd)
	wholeRead := len(res.TruncatedBy) == 0 && res.SkippedCount == 0 && len(q.words) == 0
	if !outside && !wholeRead {
		return "", nil
	}
	res.Coverage.Coverage = tools.CoverageNone
	if !ok {
		return fmt.Sprintf("log source %s has no entry placed in time; nothing in %s – %s", src.Name, acc.ts(start), acc.ts(end)), nil
	}
	upTo := res.SourceLast
	if upTo == "" {
		upTo = "a compressed file's end"
	}
	return fmt.Sprintf("log source %s covers %s – %s; nothing in the asked window %s – %s", src.Name, res.SourceFirst, upTo, acc.ts(start), acc.ts(end)), nil
}

// partialAccount is the one-line account of a window holding entries the
// filters could not judge (see tools.CoveragePartial), "" when it holds none.
func partialAccount(name string, q *query, res *Result) string {
	var parts []string
	if res.LevelUnread > 0 {
		parts = append(parts, fmt.Sprintf("%d entries whose level the layout could not read (level %s can neither count nor rule them out)", res.LevelUnread, q.level))
	}
	if res.ServiceUnread > 0 {
		parts = append(parts, fmt.Sprintf("%d entries that name no service (service %s can neither count nor rule them out)", res.ServiceUnread, q.service))
	}
	if res.Unplaced > 0 {
		parts = append(parts, fmt.Sprintf("%d entries next to it without a readable time", res.Unplaced))
	}
	if res.TimeAmbiguous > 0 {
		parts = append(parts, fmt.Sprintf("%d entries whose local time a daylight-saving change makes ambiguous (one reading inside the window, one outside)", res.TimeAmbiguous))
	}
	if res.ContainsCut > 0 {
		parts = append(parts, fmt.Sprintf("%d entries searched for the contains words in their first 16 MiB of a line only, which lack a word there (the rest was not searched)", res.ContainsCut))
	}
	if res.PartlyRead > 0 {
		parts = append(parts, fmt.Sprintf("possibly entries in the unread rest of %d files not read to their end (skipped_files)", res.PartlyRead))
	}
	if len(res.TruncatedBy) > 0 {
		parts = append(parts, fmt.Sprintf("possibly entries past where the scan stopped at its per-call limit (truncated_by %s), which were not read", strings.Join(res.TruncatedBy, ", ")))
	}
	if res.Matched == 0 && res.Unparsed > 0 {
		parts = append(parts, fmt.Sprintf("%d matching entries without a readable time", res.Unparsed))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("coverage partial: log source %s holds in the window %s", name, strings.Join(parts, "; "))
}
