package timeline

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noiseFamilies are series with no change at all, as monitoring shows them:
// each draws one value per grid point from its seed.
var noiseFamilies = []struct {
	name string
	// maxRate is the largest share of series windows with a false shift
	// the family may give: what TestFalseShiftRate holds, just above what it
	// measures with spikeK 2 (Student's t 4.9%, poisson 3 1.4%, the cycle
	// 0.6%, the others 0); with spikeK 1, the level band alone, 2,000
	// windows gave gaussian sd 20% 1.4%, Student's t 30.6%, poisson 3 17.3%,
	// poisson 30 3.4%, the cycle 2.6%, the others 0.
	maxRate float64
	draw    func(r *rand.Rand, i int, state *float64) float64
}{
	{"gaussian sd 1%", 0.005, func(r *rand.Rand, _ int, _ *float64) float64 { return 100 + r.NormFloat64() }},
	{"gaussian sd 5%", 0.005, func(r *rand.Rand, _ int, _ *float64) float64 { return 100 + 5*r.NormFloat64() }},
	{"gaussian sd 20%", 0.005, func(r *rand.Rand, _ int, _ *float64) float64 { return 100 + 20*r.NormFloat64() }},
	// heavy tails: Student's t with 3 degrees of freedom (latency outliers)
	{"student-t(3) sd ~5%", 0.06, func(r *rand.Rand, _ int, _ *float64) float64 {
		z := r.NormFloat64()
		chi := 0.0
		for range 3 {
			g := r.NormFloat64()
			chi += g * g
		}
		return 100 + 3*z/math.Sqrt(chi/3)
	}},
	// autocorrelated: AR(1), phi 0.8 (a smoothed rate, a latency quantile)
	{"AR(1) phi 0.8 sd 5%", 0.005, func(r *rand.Rand, _ int, s *float64) float64 {
		*s = 0.8**s + 0.6*5*r.NormFloat64()
		return 100 + *s
	}},
	// counts: Poisson at a low and a moderate rate (errors a minute)
	{"poisson mean 3", 0.025, func(r *rand.Rand, _ int, _ *float64) float64 { return poisson(r, 3) }},
	{"poisson mean 30", 0.005, func(r *rand.Rand, _ int, _ *float64) float64 { return poisson(r, 30) }},
	// quantized: an integer gauge (pool connections around 50)
	{"integer 50±2", 0.005, func(r *rand.Rand, _ int, _ *float64) float64 { return math.Round(50 + 2*r.NormFloat64()) }},
	// daily shape within the window: a 2-hour cycle of ±20 % with 5 % noise
	{"cycle ±20% + 5% noise", 0.01, func(r *rand.Rand, i int, _ *float64) float64 {
		return 100 + 20*math.Sin(2*math.Pi*float64(i)/60) + 5*r.NormFloat64()
	}},
}

func poisson(r *rand.Rand, mean float64) float64 {
	l, k, p := math.Exp(-mean), 0.0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// falseShiftSeeds is how many series windows each family is judged on.
const falseShiftSeeds = 1000

// TestFalseShiftRate measures how often metric_shift fires on a series with
// no change: for each family, falseShiftSeeds windows of the timeline's grid
// (maxMetricPoints judged points after baselinePoints of baseline), each
// from its own seed. It logs the share of windows with at least one event
// and the events per 1,000 judged points, and holds each family under its
// maxRate (issue 39: the false-shift rate).
func TestFalseShiftRate(t *testing.T) {
	n := baselinePoints + maxMetricPoints
	for fi, f := range noiseFamilies {
		windows, events := 0, 0
		for seed := range falseShiftSeeds {
			r := rand.New(rand.NewPCG(uint64(fi+1), uint64(seed)))
			state := 0.0
			vs := make([]*float64, n)
			for i := range vs {
				v := f.draw(r, i, &state)
				vs[i] = &v
			}
			if c := changes(vs, baselinePoints); len(c) > 0 {
				windows++
				events += len(c)
			}
		}
		rate := float64(windows) / falseShiftSeeds
		perK := 1000 * float64(events) / float64(falseShiftSeeds*maxMetricPoints)
		t.Logf("%-24s %5.1f%% of windows with a false shift, %.2f events per 1,000 points", f.name, 100*rate, perK)
		if rate > f.maxRate {
			t.Errorf("%s: %.1f%% of no-change windows have a metric_shift, over %.1f%%", f.name, 100*rate, 100*f.maxRate)
		}
	}
}
