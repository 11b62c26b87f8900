package logs

import (
	"bytes"
	"math"
	"sort"
	"strconv"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/textclip"
)

// Numbers summarised as an SRE does with awk: stats {field, by} gives, per
// value of by (or over all matches), the count, min, nearest-rank p50, p95
// and p99, max and average of field over the matched entries that carry it
// as a number: latency by route, bytes by status, queue depth by service.

// Bounds of a stats answer.
const (
	// maxStatKeys is how many keys are listed, by count; the others are
	// summed in one row, otherStatKey.
	maxStatKeys  = 20
	otherStatKey = "(other keys)"
	// allStatKey is the key of the one row when no by is given.
	allStatKey = "(all)"
	// maxStatValues bounds the values kept for percentiles over all keys;
	// past it count, min, max and avg stay exact and stats_sampled says
	// the percentiles rest on the first maxStatValues values.
	maxStatValues = 1 << 20
	// maxStatGroups bounds the distinct keys tracked; further keys count
	// under otherStatKey.
	maxStatGroups = 10000
	// maxStatName bounds the field and by names.
	maxStatName = 64
)

// StatsInput asks for a numeric field summarised over the matches,
// optionally per value of another field.
type StatsInput struct {
	Field string `json:"field" jsonschema_description:"a field holding a number (rt, urt, bytes, duration_ms, ...)"`
	By    string `json:"by,omitempty" jsonschema_description:"group by this field (path, status, service, level, ...); optional"`
}

// Stat is one row of a stats answer.
type Stat struct {
	Key   string  `json:"key"`
	Count int     `json:"count"`
	Min   float64 `json:"min"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Avg   float64 `json:"avg"`
}

// statGroup accumulates one key.
type statGroup struct {
	count    int
	min, max float64
	// mean is kept running, never as a sum: a sum of values near the
	// float64 limit (1e308) overflows to +Inf, which JSON cannot carry.
	mean float64
	vals []float64
}

// statsAcc accumulates the stats of one call.
type statsAcc struct {
	field, by []byte
	groups    map[string]*statGroup
	kept      int
	sampled   bool
}

func newStatsAcc(in *StatsInput) *statsAcc {
	if in == nil {
		return nil
	}
	return &statsAcc{field: []byte(in.Field), by: []byte(in.By), groups: map[string]*statGroup{}}
}

// add counts the entry r when it carries the field as a number.
func (s *statsAcc) add(r *logparse.Record) {
	var v []byte
	for _, f := range r.Fields {
		if bytes.Equal(f.Key, s.field) {
			v = f.Val
			break
		}
	}
	if v == nil {
		return
	}
	x, err := strconv.ParseFloat(string(bytes.Trim(v, `"`)), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	key := allStatKey
	if len(s.by) > 0 {
		key = s.key(r)
	}
	g := s.groups[key]
	if g == nil {
		if len(s.groups) >= maxStatGroups {
			key = otherStatKey
			g = s.groups[key]
		}
		if g == nil {
			g = &statGroup{min: x, max: x}
			s.groups[key] = g
		}
	}
	g.count++
	n := float64(g.count)
	g.mean += x/n - g.mean/n // each term finite: the mean stays within [min, max]
	g.min, g.max = min(g.min, x), max(g.max, x)
	if s.kept < maxStatValues {
		g.vals = append(g.vals, x)
		s.kept++
	} else {
		s.sampled = true
	}
}

// key is r's value of the by field: a field of that name, else the
// entry's service or level when by names them; "" when it has none.
func (s *statsAcc) key(r *logparse.Record) string {
	for _, f := range r.Fields {
		if bytes.Equal(f.Key, s.by) {
			return textclip.Bytes(cleanText(f.Val, false), maxFieldValue)
		}
	}
	switch string(s.by) {
	case "service":
		return textclip.Bytes(cleanText(r.Service, false), maxFieldValue)
	case "level":
		return r.Level
	}
	return ""
}

// rows lists at most maxStatKeys keys by count (ties by key), the rest
// summed in one otherStatKey row.
func (s *statsAcc) rows() []Stat {
	keys := make([]string, 0, len(s.groups))
	for k := range s.groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := s.groups[keys[i]], s.groups[keys[j]]
		if a.count != b.count {
			return a.count > b.count
		}
		return keys[i] < keys[j]
	})
	out := make([]Stat, 0, min(len(keys), maxStatKeys+1))
	var rest *statGroup
	for i, k := range keys {
		g := s.groups[k]
		if i < maxStatKeys && k != otherStatKey {
			out = append(out, g.stat(k))
			continue
		}
		if rest == nil {
			rest = &statGroup{min: g.min, max: g.max}
		}
		total := float64(rest.count + g.count)
		rest.mean = rest.mean*(float64(rest.count)/total) + g.mean*(float64(g.count)/total)
		rest.count += g.count
		rest.min, rest.max = min(rest.min, g.min), max(rest.max, g.max)
		rest.vals = append(rest.vals, g.vals...)
	}
	if rest != nil {
		out = append(out, rest.stat(otherStatKey))
	}
	return out
}

// stat summarises a group; percentiles are nearest-rank over its kept values.
func (g *statGroup) stat(key string) Stat {
	sort.Float64s(g.vals)
	avg := g.mean
	if math.Abs(avg) < 1e300 { // rounded to 6 decimals where that cannot overflow
		avg = math.Round(avg*1e6) / 1e6
	}
	return Stat{Key: key, Count: g.count, Min: g.min, Max: g.max, Avg: avg,
		P50: nearestRank(g.vals, 50), P95: nearestRank(g.vals, 95), P99: nearestRank(g.vals, 99)}
}

// nearestRank is the p-th percentile of sorted vals by the nearest-rank
// method: the value at rank ceil(p/100 × n).
func nearestRank(vals []float64, p int) float64 {
	n := len(vals)
	if n == 0 {
		return 0
	}
	rank := (p*n + 99) / 100
	return vals[max(rank, 1)-1]
}
