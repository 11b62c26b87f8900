package cmd

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/pkg/runstore"
)

// The listing of `superbiz runs` (docs/SPEC.md#superbiz-runs) comes in two
// layouts: every column with whole cells (piped, Markdown, -o wide), or,
// on a terminal, the columns that fit its width with the query cut.

// replayMark heads the RUN cell of a run that replays another.
const replayMark = "↻ "

// Times of the listing: whole, and the short form of the fitted layout.
const (
	runsTimeWide  = "2006-01-02 15:04"
	runsTimeShort = "01-02 15:04"
)

// minRunsQuery is the fewest columns the fitted layout leaves the query
// before it adds another optional column.
const minRunsQuery = 24

// fitColumn is one column of a table fitted to the terminal, over rows of
// type R: its header and its cell.
type fitColumn[R any] struct {
	header string
	cell   func(r R) string
}

// runsColumn is one column of the listing.
type runsColumn = fitColumn[runstore.RunSummary]

var (
	colNumber   = runsColumn{"#", func(r runstore.RunSummary) string { return runNumber(r.Number) }}
	colRun      = runsColumn{"RUN", runCell}
	colIntent   = runsColumn{"INTENT", func(r runstore.RunSummary) string { return orDash(cell(r.Intent)) }}
	colStatus   = runsColumn{"STATUS", func(r runstore.RunSummary) string { return orDash(cell(r.Status)) }}
	colOutcome  = runsColumn{"OUTCOME", func(r runstore.RunSummary) string { return orDash(cell(r.ReleaseOutcome)) }}
	colStop     = runsColumn{"STOP", func(r runstore.RunSummary) string { return orDash(cell(r.StopReason)) }}
	colCalls    = runsColumn{"CALLS", func(r runstore.RunSummary) string { return fmt.Sprintf("%d/%d", r.Usage.ModelCalls, r.Usage.ToolCalls) }}
	colDuration = runsColumn{"DURATION", runDuration}
	colReplayOf = runsColumn{"REPLAY OF", func(r runstore.RunSummary) string { return orDash(cell(r.ReplayOf)) }}
	colQuery    = runsColumn{"QUERY", func(r runstore.RunSummary) string { return cell(r.Query) }}
	// colResult is the fitted layout's one status column: the release
	// outcome, or the run's status when it has none (RUNNING, a TOOL_CALL).
	colResult = runsColumn{"OUTCOME", func(r runstore.RunSummary) string {
		if r.ReleaseOutcome != "" {
			return cell(r.ReleaseOutcome)
		}
		return orDash(cell(r.Status))
	}}
)

// runCell is the run's ID, marked when the run replays another.
func runCell(r runstore.RunSummary) string {
	if r.ReplayOf != "" {
		return replayMark + cell(r.ID)
	}
	return cell(r.ID)
}

// runNumber is a run's number as a person types it (runs show 12), or "-"
// for none.
func runNumber(n int64) string {
	if n <= 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// numbered is a run's number and ID, as `runs show` titles it.
func numbered(r runstore.RunSummary) string {
	if r.Number <= 0 {
		return cell(r.ID)
	}
	return runNumber(r.Number) + " · " + cell(r.ID)
}

// createdColumn is the CREATED column with times in layout.
func createdColumn(layout string) runsColumn {
	return runsColumn{"CREATED", func(r runstore.RunSummary) string { return r.CreatedAt.Local().Format(layout) }}
}

// runsWideTable is every column with whole cells: piped output, Markdown
// and -o wide.
func runsWideTable(runs []runstore.RunSummary) table {
	return columnsTable(runs, []runsColumn{colNumber, colRun, createdColumn(runsTimeWide), colIntent, colStatus, colOutcome, colStop, colCalls, colDuration, colReplayOf, colQuery}, 0)
}

// runsFitTable is the terminal's layout: #, RUN, the short CREATED, OUTCOME,
// CALLS and the query cut to fit width, plus as many of STOP, DURATION,
// INTENT and STATUS (chosen in that order, shown in the wide layout's
// order) as leave the query minRunsQuery columns.
func runsFitTable(runs []runstore.RunSummary, width int) table {
	chosen := map[string]bool{}
	layout := func() []runsColumn {
		cols := []runsColumn{colNumber, colRun, createdColumn(runsTimeShort)}
		for _, c := range []runsColumn{colIntent, colStatus} {
			if chosen[c.header] {
				cols = append(cols, c)
			}
		}
		if chosen[colStatus.header] {
			cols = append(cols, colOutcome)
		} else {
			cols = append(cols, colResult)
		}
		if chosen[colStop.header] {
			cols = append(cols, colStop)
		}
		cols = append(cols, colCalls)
		if chosen[colDuration.header] {
			cols = append(cols, colDuration)
		}
		return cols
	}
	for _, opt := range []runsColumn{colStop, colDuration, colIntent, colStatus} {
		chosen[opt.header] = true
		if width-columnsWidth(runs, layout()) < minRunsQuery {
			chosen[opt.header] = false
		}
	}
	return columnsTable(runs, append(layout(), colQuery), width)
}

// columnsWidth is how many terminal columns cols take before the last
// (cut) column, the gaps included.
func columnsWidth[R any](rows []R, cols []fitColumn[R]) int {
	total := 0
	for _, c := range cols {
		w := ansi.StringWidth(c.header)
		for _, r := range rows {
			w = max(w, ansi.StringWidth(c.cell(r)))
		}
		total += w + columnGap
	}
	return total
}

// columnsTable lays runs out in cols, fitted to fit columns (0: whole).
func columnsTable(runs []runstore.RunSummary, cols []runsColumn, fit int) table {
	t := table{fit: fit, header: make([]string, len(cols))}
	for i, c := range cols {
		t.header[i] = c.header
	}
	for _, r := range runs {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.cell(r)
		}
		t.rows = append(t.rows, row)
	}
	return t
}
