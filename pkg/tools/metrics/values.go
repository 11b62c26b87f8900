package metrics

import (
	"math"
	"time"
)

// gridValues sets each summarised series' Values from the step grid's
// evaluation (grid, one rawSeries per series, matched by labels): one slot
// per step from start to end, nil where the grid holds no finite value. A
// reader that needs the shape of a series (the incident timeline's
// change points) gets it without a second query; the summaries stay the
// finer resolution's.
func gridValues(series []Series, grid []rawSeries, start, end time.Time, step time.Duration) {
	byKey := make(map[string]rawSeries, len(grid))
	for _, r := range grid {
		byKey[labelKey(r.labels)] = r
	}
	n := pointsOf(end.Sub(start), step)
	t0, st := float64(start.UnixMilli())/1e3, step.Seconds()
	for i := range series {
		r, ok := byKey[labelKey(series[i].Labels)]
		if !ok {
			continue
		}
		vals := make([]*float64, n)
		for _, p := range r.points {
			if math.IsNaN(p.v) || math.IsInf(p.v, 0) {
				continue
			}
			k := int(math.Round((p.ts - t0) / st))
			if k < 0 || k >= n {
				continue
			}
			v := p.v
			vals[k] = &v
		}
		series[i].Values = vals
	}
}
