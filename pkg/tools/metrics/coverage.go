package metrics

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// Coverage words of a query_metrics result besides tools.CoverageNone.
const (
	coverageData    = "data"
	coverageUnknown = "unknown"
)

// emptyWindow marks res as covering no data (a plain selector without a
// sample in [start, end]), finds the selector's last sample before the
// window within the source's max_window, and returns the one-line account
// of the empty window that keeps a negative from citing it.
func (s *source) emptyWindow(ctx context.Context, selector string, start, end time.Time, res *Result) (string, error) {
	res.Coverage = tools.CoverageNone
	data, err := s.get(ctx, pathQuery, url.Values{
		"query": {fmt.Sprintf("max(max_over_time(timestamp(%s)[%dms:1m]))", selector, s.MaxWindow.Milliseconds())},
		"time":  {unixText(start)},
	})
	if err != nil {
		return "", err
	}
	last, err := instantValues(data)
	if err != nil {
		return "", fmt.Errorf("the last sample's time: %w", err)
	}
	window := fmt.Sprintf("%s – %s", start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
	if len(last) == 0 {
		return fmt.Sprintf("metrics source %s has no sample of %s in %s nor in the %s before it", s.Name, selector, window, tools.FormatDuration(s.MaxWindow)), nil
	}
	res.LastSample = stamp(last[0])
	return fmt.Sprintf("metrics source %s has %s up to %s; nothing in the asked window %s", s.Name, selector, res.LastSample, window), nil
}

// exprCoverage states what the window [start, end] held for an expression
// that returned no series, by checking each of its selectors for a sample
// in the window. The first without one makes the expression's window
// empty (coverage "none" with that selector's account, as for a plain
// selector): its "no series" may be a misspelt metric or a stopped
// exporter, never a negative. With every selector holding samples, the
// expression truly found nothing ("data"). An expression whose selectors
// cannot be read simply, or one the server refuses to count alone, stays
// "unknown".
func (s *source) exprCoverage(ctx context.Context, expr string, start, end time.Time, res *Result) (string, error) {
	res.Coverage = coverageUnknown
	sels, ok := exprSelectors(expr)
	if !ok {
		return "", nil
	}
	window := end.Sub(start) + time.Millisecond // the range excludes its start
	for _, sel := range sels {
		data, err := s.get(ctx, pathQuery, url.Values{
			"query": {fmt.Sprintf("count(count_over_time(%s[%dms]))", sel, window.Milliseconds())},
			"time":  {unixText(end)},
		})
		var ae *APIError
		if errors.As(err, &ae) && ae.Code == tools.CodeInvalidInput {
			// the server does not take this selector alone ({} for one):
			// the coverage stays unknown
			return "", nil
		}
		if err != nil {
			return "", err
		}
		n, err := instantValues(data)
		if err != nil {
			return "", fmt.Errorf("the samples of %s: %w", sel, err)
		}
		if len(n) == 0 || n[0] <= 0 {
			return s.emptyWindow(ctx, sel, start, end, res)
		}
	}
	res.Coverage = coverageData
	return "", nil
}
