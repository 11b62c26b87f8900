// Package promtest starts real Prometheus, VictoriaMetrics and Alertmanager
// servers for tests, on free loopback ports, loaded with one deterministic
// incident history. A test that needs a binary skips when it is missing,
// except in CI (CI=true), where .ci/metrics.sh must have installed it.
package promtest

import (
	"fmt"
	"strings"
	"time"
)

// The incident every server is loaded with: one sample a minute from Start to
// End (inclusive) for the latency and heap series, and one every FineInterval
// from FineStart to FineEnd for the fine series.
var (
	// Start is the first sample's time.
	Start = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	// End is the last sample's time.
	End = Start.Add(30 * time.Minute)
	// SpikeAt is the minute the checkout latency jumps to SpikeValue.
	SpikeAt = Start.Add(10 * time.Minute)
	// FineStart and FineEnd bound the fine series: one sample every
	// FineInterval, on a plateau but for one sample at FineSpikeAt.
	FineStart = Start.Add(-time.Hour)
	FineEnd   = Start.Add(time.Hour)
	// FineSpikeAt is the one sample above the plateau, off the 31s grid a
	// default 2-hour query evaluates (FineStart + 140 min is no multiple of 31s).
	FineSpikeAt = Start.Add(10 * time.Minute)
)

// Series names and values of the incident.
const (
	// LatencyMetric is the p99 latency gauge of the checkout service.
	LatencyMetric = "checkout_latency_p99_seconds"
	// LatencySelector selects the one latency series.
	LatencySelector = `checkout_latency_p99_seconds{service="checkout"}`
	// BaseLatency is the latency before and after the spike.
	BaseLatency = 0.2
	// SpikeValue is the latency at SpikeAt, the history's maximum.
	SpikeValue = 4.8
	// AfterSpike is the latency the minute after SpikeAt.
	AfterSpike = 2.4
	// HeapMetric is the heap gauge of the orders service; it climbs.
	HeapMetric = "jvm_memory_used_bytes"
	// HeapSelector selects the one heap series.
	HeapSelector = `jvm_memory_used_bytes{area="heap",service="orders"}`
	// HeapFirst is the heap at Start.
	HeapFirst = 200e6
	// HeapStep is what the heap grows each minute.
	HeapStep = 10e6
	// Instance labels of the two series.
	LatencyInstance = "app-1:8080"
	HeapInstance    = "app-2:8080"
	// FineMetric is the gateway's p99 latency, sampled every FineInterval.
	FineMetric = "gateway_latency_p99_seconds"
	// FineSelector selects the one fine series.
	FineSelector = `gateway_latency_p99_seconds{service="gateway"}`
	// FinePlateau is every fine sample but the spike.
	FinePlateau = 2.9
	// FineSpike is the fine series' one-sample maximum, at FineSpikeAt.
	FineSpike = 3.2
	// FineInterval is the fine series' sample interval.
	FineInterval = 15 * time.Second
)

// FineSamples is the number of samples the fine series has.
func FineSamples() int { return int(FineEnd.Sub(FineStart)/FineInterval) + 1 }

// Minutes is the number of samples each series has.
func Minutes() int { return int(End.Sub(Start)/time.Minute) + 1 }

// LatencyAt is the latency sample at minute i after Start.
func LatencyAt(i int) float64 {
	switch i {
	case 10:
		return SpikeValue
	case 11:
		return AfterSpike
	}
	return BaseLatency
}

// HeapAt is the heap sample at minute i after Start.
func HeapAt(i int) float64 { return HeapFirst + float64(i)*HeapStep }

// sample is one point of the history.
type sample struct {
	metric, labels string
	at             time.Time
	v              float64
}

// history lists every sample grouped by series, oldest first.
func history() (fams []string, samples [][]sample) {
	lat, heap := []sample{}, []sample{}
	for i := range Minutes() {
		at := Start.Add(time.Duration(i) * time.Minute)
		lat = append(lat, sample{LatencyMetric, fmt.Sprintf(`instance=%q,job="checkout",service="checkout"`, LatencyInstance), at, LatencyAt(i)})
		heap = append(heap, sample{HeapMetric, fmt.Sprintf(`area="heap",instance=%q,job="orders",service="orders"`, HeapInstance), at, HeapAt(i)})
	}
	fine := []sample{}
	for i := range FineSamples() {
		at := FineStart.Add(time.Duration(i) * FineInterval)
		v := FinePlateau
		if at.Equal(FineSpikeAt) {
			v = FineSpike
		}
		fine = append(fine, sample{FineMetric, `instance="gw-1:8080",job="gateway",service="gateway"`, at, v})
	}
	return []string{LatencyMetric, HeapMetric, FineMetric}, [][]sample{lat, heap, fine}
}

// OpenMetrics is the history in the OpenMetrics text format (timestamps in
// seconds, "# EOF" last), as `promtool tsdb create-blocks-from openmetrics` reads it.
func OpenMetrics() string {
	return render(func(t time.Time) int64 { return t.Unix() }) + "# EOF\n"
}

// Exposition is the history in the Prometheus text exposition format
// (timestamps in milliseconds), as VictoriaMetrics' /api/v1/import/prometheus reads it.
func Exposition() string {
	return render(func(t time.Time) int64 { return t.UnixMilli() })
}

// render writes every sample as a text line with its timestamp from stamp.
func render(stamp func(time.Time) int64) string {
	var b strings.Builder
	fams, samples := history()
	for i, f := range fams {
		fmt.Fprintf(&b, "# TYPE %s gauge\n", f)
		for _, s := range samples[i] {
			fmt.Fprintf(&b, "%s{%s} %g %d\n", s.metric, s.labels, s.v, stamp(s.at))
		}
	}
	return b.String()
}
