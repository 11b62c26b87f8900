package runstore

import (
	"encoding/base32"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// idShape is a run ID as docs/SPEC.md shows it: r_ and 18 lower-case
// Crockford base32 characters.
var idShape = regexp.MustCompile(`^r_[0-9a-hjkmnp-tv-z]{18}$`)

// inversions counts adjacent pairs made in order that sort out of order.
func inversions(ids []string) int {
	n := 0
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			n++
		}
	}
	return n
}

// IDs sort as strings in the order they were made: over 200,000
// consecutive milliseconds, within one millisecond, and when the clock
// steps back.
func TestIDsSortInCreationOrder(t *testing.T) {
	base := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name string
		n    int
		at   func(i int) time.Time
	}{
		{"consecutive milliseconds", 200_000, func(i int) time.Time { return base.Add(time.Duration(i) * time.Millisecond) }},
		{"one millisecond", 10_000, func(int) time.Time { return base }},
		{"clock steps back", 1_000, func(i int) time.Time { return base.Add(-time.Duration(i) * time.Millisecond) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			i := 0
			g := IDs{now: func() time.Time { return tt.at(i) }, random: rnd.Uint64}
			ids := make([]string, tt.n)
			for i = range ids {
				ids[i] = g.New("r_")
				if !idShape.MatchString(ids[i]) {
					t.Fatalf("ID %q does not have the documented shape", ids[i])
				}
			}
			if n := inversions(ids); n != 0 {
				t.Errorf("%d of %d IDs sort before the one made earlier", n, tt.n)
			}
		})
	}
}

// The standard base32 alphabet, used before, is not in ASCII order: the
// same 88-bit values sort out of creation order. This is what the test
// above guards against.
func TestStandardBase32IsNotTimeOrdered(t *testing.T) {
	std := base32.StdEncoding.WithPadding(base32.NoPadding)
	base := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	i := 0
	g := IDs{now: func() time.Time { return base.Add(time.Duration(i) * time.Millisecond) }, random: func() uint64 { return 0 }}
	ids := make([]string, 200_000)
	for i = range ids {
		raw, err := idEncoding.DecodeString(strings.TrimPrefix(g.New("r_"), "r_"))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = strings.ToLower(std.EncodeToString(raw))
	}
	if inversions(ids) == 0 {
		t.Error("the standard alphabet kept creation order; the test above proves nothing")
	}
}

// The random part carries into the milliseconds when a millisecond runs
// out of values, so order holds at the edge.
func TestIDsRandomPartCarries(t *testing.T) {
	base := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	g := IDs{now: func() time.Time { return base }, random: func() uint64 { return 1<<idRandomBits - 2 }}
	ids := []string{g.New("s_"), g.New("s_"), g.New("s_"), g.New("s_")}
	if n := inversions(ids); n != 0 {
		t.Errorf("IDs across the carry sort out of order: %q", ids)
	}
}

// The real clock and crypto/rand, from goroutines at once: all IDs differ,
// and each goroutine's own IDs are in order.
func TestIDsConcurrent(t *testing.T) {
	var g IDs
	const workers, each = 8, 2000
	out := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				out[w] = append(out[w], g.New("r_"))
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, workers*each)
	for w, ids := range out {
		if n := inversions(ids); n != 0 {
			t.Errorf("goroutine %d: %d IDs out of order", w, n)
		}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate ID %s", id)
			}
			seen[id] = true
		}
	}
}
