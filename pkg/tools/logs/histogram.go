package logs

import (
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// A histogram counts the matched entries per time bucket of the window,
// oldest first: how an error rate moves minute by minute, so a burst is
// placed in time without listing its entries (the incident timeline's
// error bursts rest on it).

// Bounds of a histogram.
const (
	minHistogramEvery = time.Minute
	maxHistogramEvery = time.Hour
	// MaxHistogramBuckets bounds the buckets of one answer: the window
	// divided by the bucket length, rounded up.
	MaxHistogramBuckets = 360
)

// Histogram is the answer to the input's histogram: Counts[i] is the number
// of matched entries whose time lies in [Start + i×Every, Start + (i+1)×Every).
type Histogram struct {
	Every  string `json:"every"`
	Start  string `json:"start"`
	Counts []int  `json:"counts"`
}

// parseHistogram validates a histogram bucket length against the window's
// length: a whole number of minutes from 1m to 1h, at most
// MaxHistogramBuckets buckets.
func parseHistogram(s string, window time.Duration) (time.Duration, error) {
	every, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, tools.InvalidInput("histogram %q is not a duration such as 1m or 5m", s)
	case every < minHistogramEvery || every > maxHistogramEvery || every%time.Minute != 0:
		return 0, tools.InvalidInput("histogram %q is out of range: use whole minutes from %s to %s", s, tools.FormatDuration(minHistogramEvery), tools.FormatDuration(maxHistogramEvery))
	}
	if n := buckets(window, every); n > MaxHistogramBuckets {
		return 0, tools.InvalidInput("histogram %s gives %d buckets over a %s window: use at most %d (a longer bucket or a shorter window)", s, n, tools.FormatDuration(window), MaxHistogramBuckets)
	}
	return every, nil
}

// buckets is how many buckets of every cover window.
func buckets(window, every time.Duration) int {
	return int((window + every - 1) / every)
}

// histAcc accumulates a histogram over [start, end) in nanoseconds.
type histAcc struct {
	start, every int64
	counts       []int
}

func newHistAcc(every time.Duration, startNS, endNS int64) *histAcc {
	if every <= 0 {
		return nil
	}
	n := buckets(time.Duration(endNS-startNS), every)
	return &histAcc{start: startNS, every: int64(every), counts: make([]int, n)}
}

// add counts one matched entry at ts; an entry outside the window (none
// reaches here) is not counted.
func (h *histAcc) add(ts int64) {
	if ts < h.start {
		return
	}
	if i := (ts - h.start) / h.every; i < int64(len(h.counts)) {
		h.counts[i]++
	}
}

// result is the answer, its start in the source's zone as entries are.
func (h *histAcc) result(a *accumulator) *Histogram {
	return &Histogram{Every: tools.FormatDuration(time.Duration(h.every)), Start: a.ts(h.start), Counts: append([]int(nil), h.counts...)}
}
