package logs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

const (
	benchSize = 1 << 30
	benchWord = "deadlock" // in about 0.1% of the lines
	// benchHost is a host name in about 0.1% of the lines whose every byte
	// is common in the file (the other hosts are app-N-eu-west-M), so no
	// rare byte lets a search skip ahead: the needle for the rg
	// comparison.
	benchHost = "app-17-eu-west-2"
)

// cachedDay returns a cached JSON-lines file of about size bytes spanning
// 24 hours from base, generated once under os.TempDir as name-SIZE.jsonl:
// each line is {"ts":"…" followed by what rest appends.
func cachedDay(b *testing.B, name string, size int64, rest func(line []byte) []byte) string {
	b.Helper()
	p := filepath.Join(os.TempDir(), name+"-"+strconv.FormatInt(size, 10)+".jsonl")
	if st, err := os.Stat(p); err == nil && st.Size() >= size {
		return p
	}
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	must(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for written := int64(0); written < size; {
		// time grows with the bytes written, so the file spans exactly 24h
		ts := base.Add(time.Duration(float64(24*time.Hour) * float64(written) / float64(size)))
		line = append(line[:0], `{"ts":"`...)
		line = rest(ts.AppendFormat(line, "2006-01-02T15:04:05.000Z07:00"))
		nw, err := w.Write(line)
		must(b, err)
		written += int64(nw)
	}
	must(b, w.Flush())
	must(b, f.Close())
	must(b, os.Rename(tmp, p))
	return p
}

// benchFile returns a cached JSON-lines day of about size bytes, "deadlock"
// in 0.1% of its lines and benchHost in another 0.1% (benchLine).
func benchFile(b *testing.B, size int64) string {
	b.Helper()
	i := int64(-1)
	return cachedDay(b, "superbiz-logs-bench-v2", size, func(line []byte) []byte {
		i++
		return benchLine(i, line)
	})
}

// benchLine appends the rest of the benchmarks' line number i to line (its
// opening {"ts":"<stamp>): one valid JSON object and its newline.
func benchLine(i int64, line []byte) []byte {
	n := i * 7919 % 1000003
	switch {
	case i%1000 == 7:
		line = append(line, `","level":"error","service":"order","msg":"Deadlock found when trying to get lock; try restarting transaction","order_id":`...)
		line = strconv.AppendInt(line, n, 10)
	case i%10 < 6:
		line = append(line, `","level":"info","service":"order","msg":"request completed","path":"/api/orders/`...)
		line = append(strconv.AppendInt(line, n, 10), '"')
	case i%10 < 9:
		line = append(line, `","level":"info","service":"pay","msg":"payment authorised for customer","amount_cents":`...)
		line = strconv.AppendInt(line, n, 10)
	default:
		line = append(line, `","level":"warn","service":"inventory","msg":"slow query on stock table","elapsed_ms":`...)
		line = strconv.AppendInt(line, n, 10)
	}
	line = append(line, `,"trace_id":"`...)
	line = strconv.AppendInt(line, i*2654435761%(1<<40), 16)
	if i%1000 == 507 {
		return append(line, `","host":"`+benchHost+`"}`+"\n"...)
	}
	line = append(line, `","host":"app-`...)
	line = strconv.AppendInt(line, i%16, 10)
	line = append(line, "-eu-west-"...)
	line = strconv.AppendInt(line, i%3, 10)
	return append(line, "\"}\n"...)
}

// TestBenchLineIsJSON: every line the benchmarks' day is made of is one
// valid JSON object (the generator once left the path's string open, so a
// third of the day was malformed), and benchHost is in 1 line of 1000.
func TestBenchLineIsJSON(t *testing.T) {
	hosts := 0
	for i := int64(0); i < 20000; i++ {
		line := benchLine(i, []byte(`{"ts":"2026-11-20T09:00:00.000Z`))
		if !json.Valid(line) {
			t.Fatalf("line %d is no JSON: %s", i, line)
		}
		if bytes.Contains(line, []byte(benchHost)) {
			hosts++
		}
	}
	if hosts != 20 {
		t.Errorf("%s in %d of 20000 lines, want 20", benchHost, hosts)
	}
}

func benchQuery(b *testing.B, path, input string, noSeek bool) Result {
	b.Helper()
	tool, err := New([]Source{{Name: "app", Paths: []string{path}, MaxWindow: 24 * time.Hour}})
	if err != nil {
		b.Fatal(err)
	}
	tool.noSeek = noSeek
	c, err := tool.Canonical(json.RawMessage(input))
	if err != nil {
		b.Fatal(err)
	}
	call := tools.Call{Input: c.Input, Now: base.Add(24 * time.Hour), MaxBytes: 8192}
	st, _ := os.Stat(path)
	var res Result
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := tool.Execute(context.Background(), call)
		if out.Status == tools.StatusError {
			b.Fatalf("%s: %v", out.ErrorCode, out.Detail)
		}
		res = out.Result.(Result)
	}
	return res
}

// wholeDayContains is the input of a whole-day query_logs call for needle.
func wholeDayContains(needle string) string {
	return fmt.Sprintf(`{"start":%q,"end":%q,"contains":%q}`, base.Format(time.RFC3339), base.Add(24*time.Hour).Format(time.RFC3339), needle)
}

var wholeDay = wholeDayContains(benchWord)

// BenchmarkScanContains1GiB: a contains filter over a whole day of 1 GiB.
func BenchmarkScanContains1GiB(b *testing.B) {
	res := benchQuery(b, benchFile(b, benchSize), wholeDay, false)
	b.ReportMetric(float64(res.Matched), "matched")
}

// BenchmarkScanHost1GiB: the whole day searched for benchHost, a needle of
// common bytes (the speed target; compare BenchmarkRipgrepHost1GiB).
func BenchmarkScanHost1GiB(b *testing.B) {
	res := benchQuery(b, benchFile(b, benchSize), wholeDayContains(benchHost), false)
	b.ReportMetric(float64(res.Matched), "matched")
}

// BenchmarkRipgrep1GiB times `rg -c -i -F WORD` on the same file for comparison.
func BenchmarkRipgrep1GiB(b *testing.B) { benchRipgrep(b, benchWord) }

// BenchmarkRipgrepHost1GiB times `rg -c -i -F` for benchHost.
func BenchmarkRipgrepHost1GiB(b *testing.B) { benchRipgrep(b, benchHost) }

func benchRipgrep(b *testing.B, needle string) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep (rg) is not installed: apt-get install -y ripgrep to compare")
	}
	p := benchFile(b, benchSize)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	b.ResetTimer()
	var out []byte
	for i := 0; i < b.N; i++ {
		// -i: the same case-insensitive match the tool does
		out, err = exec.Command(rg, "-c", "-i", "-F", needle, p).Output()
		if err != nil {
			b.Fatal(err)
		}
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	b.ReportMetric(float64(n), "matched")
}

// BenchmarkWindow10m1GiB: a 10-minute window in the middle of the day, found
// by binary search; compare with BenchmarkScanContains1GiB. SetBytes is the
// whole file so MB/s figures compare directly.
func BenchmarkWindow10m1GiB(b *testing.B) {
	s := base.Add(13 * time.Hour)
	in := fmt.Sprintf(`{"start":%q,"end":%q,"contains":%q}`, s.Format(time.RFC3339), s.Add(10*time.Minute).Format(time.RFC3339), benchWord)
	res := benchQuery(b, benchFile(b, benchSize), in, false)
	b.ReportMetric(float64(res.Matched), "matched")
}

// BenchmarkWindow10mNoFilter1GiB: every entry of a 10-minute window parsed.
func BenchmarkWindow10mNoFilter1GiB(b *testing.B) {
	s := base.Add(13 * time.Hour)
	in := fmt.Sprintf(`{"start":%q,"end":%q}`, s.Format(time.RFC3339), s.Add(10*time.Minute).Format(time.RFC3339))
	res := benchQuery(b, benchFile(b, benchSize), in, false)
	b.ReportMetric(float64(res.Matched), "matched")
}

// BenchmarkWindow10mLinear1GiB: the same window without binary search.
func BenchmarkWindow10mLinear1GiB(b *testing.B) {
	s := base.Add(13 * time.Hour)
	in := fmt.Sprintf(`{"start":%q,"end":%q,"contains":%q}`, s.Format(time.RFC3339), s.Add(10*time.Minute).Format(time.RFC3339), benchWord)
	res := benchQuery(b, benchFile(b, benchSize), in, true)
	b.ReportMetric(float64(res.Matched), "matched")
}

// BenchmarkGzipBomb2GiB: a gzip of 2048 members that expands to 2 GiB of
// matching lines, searched with the default per-call limits; it reports the
// decompressed bytes searched and the heap in use after the call.
func BenchmarkGzipBomb2GiB(b *testing.B) {
	line := []byte(`{"ts":"2026-03-14T14:01:00Z","level":"error","msg":"bomb line"}` + "\n")
	member := gzipBytes(b, bytes.Repeat(line, (1<<20)/len(line)), gzip.BestCompression)
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "bomb.log.gz"))
	must(b, err)
	for i := 0; i < 2048; i++ {
		_, err := f.Write(member)
		must(b, err)
	}
	must(b, f.Close())
	tool, err := New([]Source{{Name: "app", Paths: []string{f.Name()}}})
	must(b, err)
	c, err := tool.Canonical(json.RawMessage(`{"since":"1h"}`))
	must(b, err)
	call := tools.Call{Input: c.Input, Now: base.Add(30 * time.Minute), MaxBytes: 8192}
	var res Result
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := tool.Execute(context.Background(), call)
		if out.Status == tools.StatusError {
			b.Fatalf("%s: %v", out.ErrorCode, out.Detail)
		}
		res = out.Result.(Result)
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(int64(res.Matched)*int64(len(line)))/(1<<20), "MiB-searched")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap-inuse")
	if len(res.TruncatedBy) == 0 {
		b.Fatalf("the bomb was searched to its end: %+v", res)
	}
	b.Logf("truncated_by %v", res.TruncatedBy)
}

// needles are the contains words of BenchmarkContainsNeedles: one whose
// bytes are rare in JSON logs, and one whose first byte ('r') is in most
// keys and whose other shards' names (redis-cluster-02…) are common.
var needles = []string{"deadlock", "redis-cluster-01"}

// dayFile returns a cached JSON-lines day of about size bytes from base,
// shaped like a service's logs: varied services, hosts, paths, trace ids
// and messages, about 0.1% of lines holding "deadlock", 0.2%
// "redis-cluster-01" and 4% another shard's name.
func dayFile(b *testing.B, size int64) string {
	b.Helper()
	services := []string{"checkout", "payments", "inventory", "cart-service", "order-service", "api-gateway", "search", "notifications"}
	levels := []string{"info", "info", "info", "info", "info", "debug", "debug", "warn", "info", "error"}
	paths := []string{"/api/cart", "/api/checkout", "/api/orders", "/api/products", "/api/users/me", "/healthz", "/api/search", "/api/payments/authorize"}
	x := uint64(88172645463325252)
	rnd := func(n uint64) uint64 { // xorshift: the same file on every machine
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x % n
	}
	return cachedDay(b, "superbiz-logs-day", size, func(line []byte) []byte {
		svc := services[rnd(uint64(len(services)))]
		line = append(line, `","level":"`...)
		k := rnd(1000)
		switch {
		case k < 1:
			line = append(line, `error","service":"`+svc+`","msg":"Deadlock found when trying to get lock; try restarting transaction","table":"orders"`...)
		case k < 3:
			line = append(line, `error","service":"`+svc+`","msg":"cache read failed","peer":"redis-cluster-01.cache.prod.internal:6379","error":"i/o timeout"`...)
		case k < 43:
			line = append(line, `debug","service":"`+svc+`","msg":"cache get","peer":"redis-cluster-0`...)
			line = strconv.AppendUint(line, 2+rnd(6), 10)
			line = append(line, `.cache.prod.internal:6379","key":"cart:`...)
			line = strconv.AppendUint(line, rnd(1e6), 10)
			line = append(line, `","hit":true`...)
		case k < 700:
			line = append(line, levels[rnd(uint64(len(levels)))]...)
			line = append(line, `","service":"`+svc+`","msg":"request completed","http.method":"GET","http.path":"`...)
			line = append(line, paths[rnd(uint64(len(paths)))]...)
			line = append(line, `","status":200,"duration_ms":`...)
			line = strconv.AppendUint(line, rnd(900), 10)
			line = append(line, `,"user_id":"u-`...)
			line = strconv.AppendUint(line, rnd(1e7), 10)
			line = append(line, '"')
		case k < 850:
			line = append(line, `info","service":"`+svc+`","msg":"payment authorised for customer","amount_cents":`...)
			line = strconv.AppendUint(line, rnd(100000), 10)
			line = append(line, `,"currency":"EUR","provider":"stripe"`...)
		case k < 950:
			line = append(line, `warn","service":"`+svc+`","msg":"slow query on stock table","elapsed_ms":`...)
			line = strconv.AppendUint(line, 500+rnd(5000), 10)
			line = append(line, `,"rows_examined":`...)
			line = strconv.AppendUint(line, rnd(1e6), 10)
		default:
			line = append(line, `info","service":"`+svc+`","msg":"Kafka consumer rebalanced; partitions assigned","topic":"orders.events","partitions":[0,3,7]`...)
		}
		line = append(line, `,"trace_id":"`...)
		line = strconv.AppendUint(line, rnd(1<<62), 16)
		line = append(line, `","host":"`+svc+`-7d9f8b6c5-`...)
		line = strconv.AppendUint(line, rnd(1<<20), 36)
		return append(line, "\"}\n"...)
	})
}

// BenchmarkContainsNeedles: a contains filter over a whole day of 256 MiB
// for each of the needles; the counts are reported so a faster scan that
// counts differently shows.
func BenchmarkContainsNeedles(b *testing.B) {
	p := dayFile(b, 256<<20)
	for _, n := range needles {
		b.Run(n, func(b *testing.B) {
			in := fmt.Sprintf(`{"start":%q,"end":%q,"contains":%q}`, base.Format(time.RFC3339), base.Add(24*time.Hour).Format(time.RFC3339), n)
			res := benchQuery(b, p, in, false)
			b.ReportMetric(float64(res.Matched), "matched")
		})
	}
}
