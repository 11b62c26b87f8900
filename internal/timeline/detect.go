package timeline

import (
	"math"
	"slices"
)

// The change-point method, shared by metric shifts and error bursts: each
// point is judged against a trailing baseline of the points before it, by
// its median and its median absolute deviation (MAD). Median and MAD are
// robust: a spike or a few outliers in the baseline move neither, and a
// trailing baseline follows slow drift and daily shape within the window,
// so only a change against the series' own recent band is an event.
const (
	// baselinePoints is the trailing baseline's length, in points.
	baselinePoints = 30
	// minBaseline is the fewest finite baseline points a judgement needs.
	minBaseline = 10
	// bandK is how many robust standard deviations (1.4826 × MAD) a point
	// must lie from the baseline's median to leave its band: with a
	// 30-point baseline, 6 gave 5 false alarms in 100,000 points of
	// Gaussian noise (the MAD of a short baseline is itself noisy, so the
	// textbook 3 would give hundreds).
	bandK = 6
	// relFloor is the smallest band, relative to the median's size, so a
	// flat series (MAD 0) does not make a change of 0.1 % an event.
	relFloor = 0.05
	// spikeK widens the band a lone point (a spike, not a level shift)
	// must leave. With the level band alone, no-change series gave a
	// false spike in 31% of 180-point windows of heavy-tailed noise
	// (Student's t, 3 degrees of freedom) and 17% of low counts (Poisson,
	// mean 3); with 2, 4.9% and 1.4% (TestFalseShiftRate). A spike must
	// still be 12 robust sigma, or 60% of the median, out.
	spikeK = 2
	// shiftLook is how many points after a change decide between a level
	// shift (most of them stay out of the band) and a spike.
	shiftLook = 3
)

// median of vs (sorted in place).
func median(vs []float64) float64 {
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// band is a baseline's median and the half-width of its band.
type band struct{ mid, half float64 }

// bandOf is the band of the finite values among vs, ok false with fewer
// than minBaseline of them.
func bandOf(vs []*float64) (band, bool) {
	xs := make([]float64, 0, len(vs))
	for _, v := range vs {
		if v != nil {
			xs = append(xs, *v)
		}
	}
	if len(xs) < minBaseline {
		return band{}, false
	}
	m := median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	mad := median(dev)
	half := bandK * math.Max(1.4826*mad, relFloor*math.Abs(m))
	if half == 0 {
		half = math.SmallestNonzeroFloat64
	}
	return band{mid: m, half: half}, true
}

// side is +1 above the band, -1 below, 0 within.
func (b band) side(x float64) int {
	switch {
	case x > b.mid+b.half:
		return 1
	case x < b.mid-b.half:
		return -1
	}
	return 0
}

// change is one point where a series left its band.
type change struct {
	// at is the index of the first point out of the band.
	at int
	// shift is true for a level shift, false for a spike.
	shift         bool
	before, after float64
}

// changes finds where vs leaves its trailing band, judging the points from
// index from on (the points before it are baseline only). After a level
// shift the baseline starts again at the new level; consecutive points out
// of the band on the same side are one change.
func changes(vs []*float64, from int) []change {
	var out []change
	floor := 0 // the baseline never reaches back before a shift
	for i := max(from, 0); i < len(vs); i++ {
		if vs[i] == nil {
			continue
		}
		b, ok := bandOf(vs[max(floor, i-baselinePoints):i])
		if !ok {
			continue
		}
		s := b.side(*vs[i])
		if s == 0 {
			continue
		}
		// how many of the next points stay out on the same side
		stay, seen := 0, 0
		var after []float64
		after = append(after, *vs[i])
		for j := i + 1; j < len(vs) && seen < shiftLook; j++ {
			if vs[j] == nil {
				continue
			}
			seen++
			if b.side(*vs[j]) == s {
				stay++
				after = append(after, *vs[j])
			}
		}
		c := change{at: i, before: b.mid}
		if seen > 0 && stay*2 > seen {
			// a level shift: the new level's points form the next baseline
			c.shift, c.after = true, median(after)
			floor = i
			out = append(out, c)
			continue
		}
		// a spike: one point, so it must leave a band spikeK times wider
		// (heavy-tailed noise leaves the level band alone now and then);
		// the rest of this excursion is the same change
		if wide := (band{mid: b.mid, half: spikeK * b.half}); wide.side(*vs[i]) == 0 {
			continue
		}
		c.after = *vs[i]
		out = append(out, c)
		for i+1 < len(vs) && (vs[i+1] == nil || b.side(*vs[i+1]) == s) {
			i++
		}
	}
	return out
}

// Error bursts: counts per bucket are judged like a series, with the band
// widened to what chance gives a count (Poisson: 4 √median) and at least
// minBurst entries, so a quiet service's 0 → 2 is not a burst. One
// service's errors wander about the limit while an incident lasts (5, 2, 8,
// 3 a minute): a dip of fewer than burstQuiet buckets within it does not
// end a burst, so the incident is one burst, placed at its first bucket.
const (
	minBurst   = 5
	burstQuiet = 5
)

// burst is one run of buckets well above their trailing baseline.
type burst struct {
	// at and end are the first bucket of the burst and the one after it.
	at, end int
	// before is the baseline's median, after the burst's mean count.
	before, after float64
}

// trailing is the baseline of bucket i: the counts of the up to
// baselinePoints buckets before it, and false when there are fewer than
// minBaseline/2 of them to judge by.
func trailing(counts []int, i int) ([]float64, bool) {
	lo := max(0, i-baselinePoints)
	if i-lo < minBaseline/2 {
		return nil, false
	}
	xs := make([]float64, 0, i-lo)
	for _, c := range counts[lo:i] {
		xs = append(xs, float64(c))
	}
	return xs, true
}

// bursts finds, from index from on, every bucket whose count rises well
// above its trailing baseline after the buckets before it did not: the
// start of each burst, its baseline and its mean count over its buckets.
func bursts(counts []int, from int) []burst {
	var out []burst
	for i := max(from, 0); i < len(counts); i++ {
		xs, ok := trailing(counts, i)
		if !ok {
			continue
		}
		m := median(xs)
		dev := make([]float64, len(xs))
		for k, x := range xs {
			dev[k] = math.Abs(x - m)
		}
		mad := median(dev)
		limit := m + math.Max(bandK*1.4826*mad, math.Max(4*math.Sqrt(m), 3))
		if c := float64(counts[i]); c < minBurst || c <= limit {
			continue
		}
		// the burst lasts to its last bucket above the limit that fewer
		// than burstQuiet buckets within it follow
		last := i
		for j := i + 1; j < len(counts) && j-last <= burstQuiet; j++ {
			if float64(counts[j]) > limit {
				last = j
			}
		}
		sum := 0
		for _, c := range counts[i : last+1] {
			sum += c
		}
		out = append(out, burst{at: i, end: last + 1, before: m, after: float64(sum) / float64(last+1-i)})
		i = last
	}
	return out
}

// rises finds, from index from on, every bucket whose count exceeds its
// trailing baseline's median by minBurst or more after the bucket before
// it did not: where one service's burst may lie, though the other
// services' errors hide it from bursts over the whole source.
func rises(counts []int, from int) []int {
	var out []int
	up := false
	for i := max(from, 0); i < len(counts); i++ {
		xs, ok := trailing(counts, i)
		if !ok {
			continue
		}
		rising := float64(counts[i])-median(xs) >= minBurst
		if rising && !up {
			out = append(out, i)
		}
		up = rising
	}
	return out
}
