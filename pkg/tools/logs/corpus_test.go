package logs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// corpusCase is one format of the corpus (testdata/logs/corpus, whose
// README names the public source each follows, and the everyday formats of
// testdata/logs/formats): the entries of its window and how many of them
// are of level.
type corpusCase struct {
	dir, file string
	entries   int
	level     string
	count     int
	// want is the outcome the format must keep: "read" (placed in time
	// and counted exactly) or "honest" (refused, or the level filter's
	// count is short only by the entries it says it could not read).
	want string
}

// corpusOutcome classifies what query_logs made of one corpus format:
// read, honest, or wrong (a count off without saying so).
func corpusOutcome(t *testing.T, c corpusCase) (string, string) {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "logs", c.dir, c.file))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, c.file)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	start, end, mtime := "2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z", time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	if c.dir == "formats" {
		start, end, mtime = "2026-03-14T14:00:00Z", "2026-03-14T14:30:00Z", fixtureMtime
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	tool := newTool(t, Source{Name: "app", Paths: []string{p}})
	exec := func(extra string) (tools.Outcome, Result, bool) {
		c, err := tool.Canonical(json.RawMessage(`{"start":"` + start + `","end":"` + end + `"` + extra + `}`))
		if err != nil {
			t.Fatal(err)
		}
		out := tool.Execute(context.Background(), tools.Call{ToolCallID: "call_1", Tool: ToolName, Input: c.Input, Now: mtime.Add(24 * time.Hour), MaxBytes: 1 << 20})
		if out.Status == tools.StatusError {
			return out, Result{}, false
		}
		res := out.Result.(Result)
		return out, res, res.SkippedCount == 0
	}
	_, all, ok := exec("")
	if !ok {
		return "honest", "refused"
	}
	_, lv, _ := exec(`,"level":"` + c.level + `"`)
	layout := ""
	got := func() string {
		return "entries " + itoa(all.Matched) + "/" + itoa(c.entries) + ", " + c.level + " " + itoa(lv.Matched) + "/" + itoa(c.count) + ", level_unread " + itoa(lv.LevelUnread) + layout
	}
	switch {
	case all.Matched == c.entries && lv.Matched == c.count:
		return "read", got()
	case all.Matched+all.Unplaced+all.Unparsed >= c.entries && all.Matched <= c.entries &&
		lv.Matched <= c.count && lv.Matched+lv.LevelUnread+lv.Unplaced >= c.count:
		return "honest", got()
	}
	return "wrong", got()
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestCorpus runs query_logs over every format of the corpus: 52 server,
// framework, database, queue and job-runner formats written for this test
// after their public sources (testdata/logs/corpus/README.md) and the 24
// everyday formats of testdata/logs/formats. Each must keep its outcome:
// read (every entry placed, the level's count exact) or honest (refused,
// or short only by entries it says it could not read); none may be wrong.
// The figures are logged (go test -run TestCorpus -v).
func TestCorpus(t *testing.T) {
	cases := []corpusCase{
		{"corpus", "tomcat_catalina.log", 6, "ERROR", 2, "read"},
		{"corpus", "jul_simple.log", 5, "ERROR", 2, "read"},
		{"corpus", "celery.log", 6, "ERROR", 2, "read"},
		{"corpus", "airflow_task.log", 6, "ERROR", 2, "read"},
		{"corpus", "geth.log", 6, "ERROR", 2, "read"},
		{"corpus", "nats.log", 6, "ERROR", 2, "read"},
		{"corpus", "cassandra.log", 6, "ERROR", 2, "read"},
		{"corpus", "zookeeper.log", 6, "ERROR", 2, "read"},
		{"corpus", "vault.log", 6, "ERROR", 2, "read"},
		{"corpus", "consul_legacy.log", 6, "ERROR", 2, "read"},
		{"corpus", "etcd_capnslog.log", 6, "ERROR", 2, "read"},
		{"corpus", "cockroach.log", 6, "ERROR", 2, "read"},
		{"corpus", "mongodb_legacy.log", 6, "ERROR", 2, "read"},
		{"corpus", "rabbitmq.log", 6, "ERROR", 2, "read"},
		{"corpus", "clickhouse.log", 6, "ERROR", 2, "read"},
		{"corpus", "logstash.log", 6, "ERROR", 2, "read"},
		{"corpus", "php_fpm.log", 6, "ERROR", 2, "read"},
		{"corpus", "php_error.log", 5, "ERROR", 2, "read"},
		{"corpus", "sidekiq.log", 8, "ERROR", 2, "read"},
		{"corpus", "jenkins.log", 6, "ERROR", 2, "read"},
		{"corpus", "mariadb.log", 6, "ERROR", 2, "read"},
		{"corpus", "mysql55.log", 6, "ERROR", 2, "read"},
		{"corpus", "jetty.log", 6, "WARN", 3, "read"},
		{"corpus", "solr.log", 6, "ERROR", 2, "read"},
		{"corpus", "keycloak.log", 6, "ERROR", 2, "read"},
		{"corpus", "wildfly_console.log", 4, "ERROR", 2, "honest"},
		{"corpus", "flink.log", 6, "ERROR", 2, "read"},
		{"corpus", "hbase.log", 6, "ERROR", 2, "read"},
		{"corpus", "activemq.log", 6, "ERROR", 2, "read"},
		{"corpus", "couchdb.log", 6, "ERROR", 2, "read"},
		{"corpus", "neo4j.log", 6, "ERROR", 2, "read"},
		{"corpus", "supervisord.log", 7, "ERROR", 2, "read"},
		{"corpus", "salt_minion.log", 6, "ERROR", 2, "read"},
		{"corpus", "tornado.log", 6, "ERROR", 2, "read"},
		{"corpus", "jupyter.log", 6, "ERROR", 2, "read"},
		{"corpus", "gitea.log", 6, "ERROR", 2, "read"},
		{"corpus", "unbound.log", 6, "ERROR", 2, "read"},
		{"corpus", "squid_cache.log", 6, "ERROR", 2, "read"},
		{"corpus", "laravel.log", 5, "ERROR", 2, "read"},
		{"corpus", "symfony.log", 6, "ERROR", 2, "read"},
		{"corpus", "dotnet_console.log", 3, "ERROR", 1, "honest"},
		{"corpus", "uvicorn.log", 6, "ERROR", 1, "honest"},
		{"corpus", "django_runserver.log", 5, "ERROR", 2, "honest"},
		{"corpus", "istio_pilot.log", 6, "ERROR", 2, "read"},
		{"corpus", "envoy_app.log", 6, "ERROR", 2, "read"},
		{"corpus", "openstack_nova.log", 6, "ERROR", 2, "read"},
		{"corpus", "mosquitto.log", 7, "ERROR", 2, "read"},
		{"corpus", "pgbouncer.log", 6, "ERROR", 2, "read"},
		{"corpus", "kube_apiserver.log", 6, "ERROR", 2, "read"},
		{"corpus", "prometheus.log", 6, "ERROR", 2, "read"},
		{"corpus", "containerd.log", 6, "ERROR", 2, "read"},
		{"corpus", "grafana.log", 6, "ERROR", 2, "read"},

		{"formats", "postgres.log", 5, "ERROR", 2, "read"},
		{"formats", "lambda.log", 5, "ERROR", 2, "read"},
		{"formats", "gunicorn.log", 5, "ERROR", 2, "read"},
		{"formats", "ruby_logger.log", 5, "ERROR", 2, "read"},
		{"formats", "redis.log", 5, "WARN", 2, "read"},
		{"formats", "elasticsearch.log", 5, "ERROR", 2, "read"},
		{"formats", "mysql.log", 5, "ERROR", 2, "read"},
		{"formats", "kafka.log", 5, "ERROR", 2, "read"},
		{"formats", "spring_boot2.log", 5, "ERROR", 2, "read"},
		{"formats", "spring_boot3.log", 5, "ERROR", 2, "read"},
		{"formats", "caddy.json", 5, "ERROR", 2, "read"},
		{"formats", "zap.json", 5, "ERROR", 2, "read"},
		{"formats", "zap_console.log", 5, "ERROR", 2, "read"},
		{"formats", "pino.json", 5, "ERROR", 2, "read"},
		{"formats", "bunyan.json", 5, "ERROR", 2, "read"},
		{"formats", "serilog.json", 5, "ERROR", 2, "read"},
		{"formats", "mongodb.json", 5, "ERROR", 2, "read"},
		{"formats", "traefik.log", 5, "ERROR", 2, "read"},
		{"formats", "nginx_timing.log", 5, "ERROR", 2, "read"},
		{"formats", "nginx_error.log", 5, "ERROR", 2, "read"},
		{"formats", "apache_error.log", 5, "ERROR", 2, "read"},
		{"formats", "python.log", 5, "ERROR", 2, "read"},
		{"formats", "log4j_dash.log", 5, "ERROR", 2, "read"},
		{"formats", "python_basic.log", 5, "ERROR", 2, "honest"},
	}
	tally := map[string]int{}
	for _, c := range cases {
		t.Run(c.dir+"/"+c.file, func(t *testing.T) {
			got, detail := corpusOutcome(t, c)
			tally[got]++
			t.Logf("%s: %s (%s)", c.file, got, detail)
			if got != c.want {
				t.Errorf("%s/%s: %s (%s), want %s", c.dir, c.file, got, detail, c.want)
			}
		})
	}
	t.Logf("corpus of %d formats: %d read, %d honest, %d wrong", len(cases), tally["read"], tally["honest"], tally["wrong"])
}
