package timeline

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func series(xs ...float64) []*float64 {
	out := make([]*float64, len(xs))
	for i := range xs {
		out[i] = ptr(xs[i])
	}
	return out
}

func ptr(v float64) *float64 { return &v }

func flat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestChanges places level shifts and spikes at their true index and
// finds nothing in noise, slow seasonality or a flat series.
func TestChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noisy := func(n int, mean, sd float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = mean + sd*rng.NormFloat64()
		}
		return out
	}
	cat := func(parts ...[]float64) []float64 {
		var out []float64
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	seasonal := make([]float64, 240)
	for i := range seasonal {
		seasonal[i] = 100 + 30*math.Sin(2*math.Pi*float64(i)/120) + rng.NormFloat64()
	}
	cases := []struct {
		name  string
		xs    []float64
		from  int
		want  []int
		shift []bool
	}{
		{"level shift in noise", cat(noisy(60, 0.2, 0.01), noisy(40, 0.9, 0.01)), 20, []int{60}, []bool{true}},
		{"spike", cat(flat(30, 0.2), []float64{4.8, 2.4}, flat(20, 0.2)), 20, []int{30}, []bool{false}},
		{"shift down", cat(noisy(40, 1000, 5), noisy(40, 200, 5)), 20, []int{40}, []bool{true}},
		{"two shifts", cat(noisy(40, 10, 0.3), noisy(40, 30, 0.3), noisy(40, 10, 0.3)), 20, []int{40, 80}, []bool{true, true}},
		{"noise only", noisy(500, 5, 1), 20, nil, nil},
		{"seasonality within the window", seasonal, 20, nil, nil},
		{"flat", flat(100, 3), 20, nil, nil},
		{"a change before from is baseline", cat(noisy(30, 1, 0.01), noisy(60, 2, 0.01)), 50, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := changes(series(c.xs...), c.from)
			if len(got) != len(c.want) {
				t.Fatalf("changes at %v, want at %v", got, c.want)
			}
			for i, g := range got {
				if g.at != c.want[i] || g.shift != c.shift[i] {
					t.Errorf("change %d at %d shift %v, want at %d shift %v (%+v)", i, g.at, g.shift, c.want[i], c.shift[i], g)
				}
			}
		})
	}
	// before and after of a shift
	got := changes(series(cat(flat(30, 0.2), flat(30, 0.9))...), 10)
	if len(got) != 1 || got[0].before != 0.2 || got[0].after != 0.9 {
		t.Errorf("shift 0.2 → 0.9: %+v", got)
	}
	// gaps (nil) are neither baseline nor change
	xs := series(cat(flat(30, 1), flat(30, 5))...)
	for i := 20; i < 35; i += 2 {
		xs[i] = nil
	}
	if got := changes(xs, 10); len(got) != 1 || got[0].at != 31 {
		t.Errorf("shift at 30 with gaps: %+v, want the first point after it at 31", got)
	}
}

// TestBursts finds each bucket well above its baseline and not a quiet
// service's few errors or steady noise.
func TestBursts(t *testing.T) {
	cases := []struct {
		name   string
		counts []int
		want   []int
	}{
		{"burst", append(append(make([]int, 20), 2, 1, 0, 40, 55, 60), 2, 1), []int{23}},
		{"steady errors", []int{10, 12, 9, 11, 10, 13, 8, 10, 12, 11, 9, 10, 11, 12, 10, 9, 11}, nil},
		{"quiet 0 to 3", append(make([]int, 20), 3, 0, 0), nil},
		{"too early to judge", []int{0, 50, 50, 50}, nil},
		{"two bursts", append(append(append(make([]int, 20), 40, 50, 45), make([]int, 30)...), 30, 30), []int{20, 53}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := bursts(c.counts, 0)
			var at []int
			for _, b := range got {
				at = append(at, b.at)
			}
			if !slices.Equal(at, c.want) {
				t.Fatalf("bursts at %v, want %v", at, c.want)
			}
		})
	}
	b := bursts(append(append(make([]int, 20), 2, 1, 0, 40, 55, 60), 2, 1), 0)[0]
	if b.before != 0 || b.after != (40+55+60)/3.0 || b.end != 26 {
		t.Errorf("burst %+v: want before 0, the burst's mean after, end 26", b)
	}
}
