package metrics

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/tools"
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
		return fmt.Sprintf("metrics source %s has no sample of %s in %s nor in the %s before it", s.Name, selector, window, config.FormatDuration(s.MaxWindow)), nil
	}
	res.LastSample = stamp(last[0])
	return fmt.Sprintf("metrics source %s has %s up to %s; nothing in the asked window %s", s.Name, selector, res.LastSample, window), nil
}
