package knowledge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var (
	benchEN = strings.Fields("redis timeout mysql connection pool exhausted payment gateway latency p99 deploy rollback " +
		"jvm heap full gc oom cpu disk space service unavailable retry circuit breaker slow query index lock " +
		"thread dump kafka consumer lag nginx upstream 504 503 cache eviction replica failover dns tls certificate")
	benchZH = strings.Fields("支付 超时 连接池 耗尽 慢查询 索引 死锁 回滚 发布 延迟 升高 老年代 频繁 内存 溢出 磁盘 空间 " +
		"不足 服务 不可用 重试 熔断 限流 线程池 打满 缓存 击穿 雪崩 主从 切换 证书 过期 网关 报错 排查 步骤 处理 方案")
)

// synthVocab builds a vocabulary in rank order for a Zipf distribution, as
// in real text: 120 filler words first (the "the/is/的/了" of runbooks, in
// most sections), then the domain words the benchmark queries use, mixed
// with thousands of generated identifiers, error names and Chinese words.
func synthVocab(rng *rand.Rand) []string {
	syl := strings.Fields("ka lo mi ne ru sa to vi de pa re zo qu ix an el on ur")
	han := []rune("数据服务接口请求响应队列节点集群实例配置告警监控日志指标版本容量负载网络存储主机进程线程任务调度")
	gen := func(i int) string {
		if i%3 == 0 {
			r := []rune{han[rng.IntN(len(han))], han[rng.IntN(len(han))]}
			return string(r)
		}
		return syl[rng.IntN(len(syl))] + syl[rng.IntN(len(syl))] + syl[rng.IntN(len(syl))]
	}
	var vocab []string
	for i := 0; i < 120; i++ {
		vocab = append(vocab, gen(i))
	}
	domain := append(append([]string{}, benchEN...), benchZH...)
	rng.Shuffle(len(domain), func(i, j int) { domain[i], domain[j] = domain[j], domain[i] })
	for i, w := range domain {
		vocab = append(vocab, w)
		for j := 0; j < 40; j++ {
			vocab = append(vocab, gen(i*40+j))
		}
	}
	return vocab
}

// synthCorpus writes files×sections synthetic runbook sections, mixed
// Chinese and English words drawn from a Zipf distribution, and returns the
// root.
func synthCorpus(tb testing.TB, files, sections int) string {
	return synthCorpusWith(tb, files, sections, false)
}

// synthCorpusWith writes the synthetic corpus; uniform draws every word from
// the 120 domain words alone, the worst case where each query term is in a
// third of all sections.
func synthCorpusWith(tb testing.TB, files, sections int, uniform bool) string {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := synthVocab(rng)
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	domain := append(append([]string{}, benchEN...), benchZH...)
	draw := func() string {
		if uniform {
			return domain[rng.IntN(len(domain))]
		}
		return vocab[zipf.Uint64()]
	}
	words := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(draw())
			if rng.IntN(4) == 0 {
				b.WriteString("，")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	dir := filepath.Join(tb.TempDir(), "runbooks")
	for f := 0; f < files; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Runbook %d %s\n\n", f, words(3))
		for s := 0; s < sections; s++ {
			fmt.Fprintf(&b, "## %s %d\n\n%s\n\n%s\n\n", words(3), s, words(40), words(30))
		}
		writeFile(tb, dir, fmt.Sprintf("team%02d/runbook-%04d.md", f%20, f), b.String())
	}
	return dir
}

// BenchmarkIndex10k indexes 10,000 synthetic sections from scratch (target < 10 s).
func BenchmarkIndex10k(b *testing.B) {
	dir := synthCorpus(b, 500, 20)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ix := NewIndex(openDB(b), []string{dir})
		b.StartTimer()
		start := time.Now()
		st, err := ix.Sync(context.Background(), nil)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if st.Total != 10000 {
			b.Fatalf("indexed %d sections, want 10000", st.Total)
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/10k-sections")
}

// BenchmarkResync10k is the on-use cost of Sync when nothing changed.
func BenchmarkResync10k(b *testing.B) {
	ix := NewIndex(openDB(b), []string{synthCorpus(b, 500, 20)})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Sync(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchQueries are engineer-style queries over the synthetic domain words.
var benchQueries = []string{
	"redis timeout", "支付超时", "order-service 支付超时 504", "mysql connection pool exhausted",
	"老年代 Full GC 频繁", "p99 latency high after deploy", "连接池耗尽", "磁盘空间不足",
	"HikariPool connection is not available", "服务不可用 503", "kafka consumer lag", "慢查询 索引",
	"circuit breaker retry storm", "证书过期", "缓存 雪崩 击穿", "jvm heap oom", "线程池打满",
	"dns failover replica", "nginx upstream 504", "主从切换 延迟",
}

// BenchmarkSearch searches the 10k-section index (Zipf vocabulary) with
// engineer-style queries and reports p50 and p95 latency (target p50 < 5 ms).
func BenchmarkSearch(b *testing.B) {
	benchSearch(b, synthCorpus(b, 500, 20))
}

// BenchmarkSearchCommonTerms is the worst case: every query term is in about
// a third of the 10,000 sections, so bm25 ranks thousands of rows.
func BenchmarkSearchCommonTerms(b *testing.B) {
	benchSearch(b, synthCorpusWith(b, 500, 20, true))
}

func benchSearch(b *testing.B, root string) {
	ix := NewIndex(openDB(b), []string{root})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		start := time.Now()
		docs, err := ix.Search(context.Background(), q, 3)
		durations = append(durations, time.Since(start))
		if err != nil || len(docs) == 0 {
			b.Fatalf("%q: %d docs, %v", q, len(docs), err)
		}
	}
	b.StopTimer()
	reportPercentiles(b, durations)
}

// reportPercentiles reports the p50 and p95 of the measured durations.
func reportPercentiles(b *testing.B, durations []time.Duration) {
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(durations[len(durations)/2]), "p50-ms")
	b.ReportMetric(ms(durations[len(durations)*95/100]), "p95-ms")
}

// BenchmarkSearchFresh is lookup_knowledge's whole cost over an unchanged
// corpus of 1,000 files and 6,000 sections: the freshness check (Sync) and
// the search, as `kb search` and the tool do on every use (target p50 well
// under the 50 ms a whole `kb search` process may take).
func BenchmarkSearchFresh(b *testing.B) {
	ix := NewIndex(openDB(b), []string{synthCorpus(b, 1000, 6)})
	if st, err := ix.Sync(context.Background(), nil); err != nil || st.Total != 6000 {
		b.Fatalf("index: %+v, %v", st, err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		st, err := ix.Sync(context.Background(), nil)
		if err != nil || st.Skipped != 1000 {
			b.Fatalf("sync: %+v, %v", st, err)
		}
		q := benchQueries[i%len(benchQueries)]
		if docs, err := ix.Search(context.Background(), q, 3); err != nil || len(docs) == 0 {
			b.Fatalf("%q: %d docs, %v", q, len(docs), err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, durations)
}

// benchCorpusEnv names a directory TestWriteBenchCorpus fills with the
// BenchmarkSearchFresh corpus, for timing the built binary with hyperfine:
//
//	SUPERBIZ_KB_BENCH_CORPUS=/tmp/kb/runbooks go test ./pkg/tools/knowledge -run TestWriteBenchCorpus
const benchCorpusEnv = "SUPERBIZ_KB_BENCH_CORPUS"

func TestWriteBenchCorpus(t *testing.T) {
	dst := os.Getenv(benchCorpusEnv)
	if dst == "" {
		t.Skip("set " + benchCorpusEnv + " to write the benchmark corpus there")
	}
	src := synthCorpus(t, 1000, 6)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, dst, filepath.ToSlash(rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkSplit splits a realistic bilingual runbook.
func BenchmarkSplit(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "runbooks", "payment-timeout.zh.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		Split("payment-timeout.zh.md", string(data))
	}
}
