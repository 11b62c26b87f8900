package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // planting a secret in the workspace's database

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// `superbiz eval pack` (issue 28): a stored diagnosis frozen into a pack
// grades the same outcome when its workspace is gone, fails with a wrong
// root cause, and holds none of the workspace's secrets.

// The secrets planted in the workspace: a log line, a runbook, two cells
// of the SQLite database and the password of a database's DSN.
var plantedSecrets = []string{
	"PlantedLogPassw0rd", "ghp_PlantedLogToken0123456789abcdefABCDEF",
	"PlantedRunbookPw1", "PlantedColumnPw2", "PlantedCellKey3", "PlantedDsnPw4",
}

// frozenWorkspace is a workspace on disk made of the demo's data (not the
// demo: a run on it is no demo run) with the secrets planted, and the
// configuration file naming it.
func frozenWorkspace(t *testing.T, e *env) (dir, cfg string) {
	t.Helper()
	dir = filepath.Join(e.dir, "workspace")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws, err := demo.Materialize(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(dir, "logs", "payment-service", "payment-service.log"),
		`{"ts":"2026-11-28T14:59:30.000Z","level":"ERROR","service":"payment-service","msg":"vault login failed token=ghp_PlantedLogToken0123456789abcdefABCDEF","password":"PlantedLogPassw0rd"}`+"\n")
	appendFile(t, filepath.Join(ws.RunbooksDir, "en", "payment-timeout.md"), "\n\nBreak-glass access: mysql -u root --password=PlantedRunbookPw1\n")
	db, err := sql.Open("sqlite", ws.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE service_accounts(name TEXT, password TEXT, note TEXT);
		INSERT INTO service_accounts VALUES ('payments', 'PlantedColumnPw2', 'rotate it: api_key=PlantedCellKey3')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	src := ws.LogSources[0]
	cfg = filepath.Join(e.dir, "superbiz.toml")
	writeFiles(t, e.dir, map[string]string{"superbiz.toml": `[knowledge]
paths = ["` + ws.RunbooksDir + `"]

[[logs]]
name = "` + src.Name + `"
paths = ["` + strings.Join(src.Paths, `", "`) + `"]
format = "auto"
timezone = "UTC"

[[databases]]
name = "` + ws.DBName + `"
driver = "sqlite"
dsn = "` + ws.DBPath + `"

[[databases]]
name = "billing"
driver = "mysql"
dsn = "app:PlantedDsnPw4@tcp(127.0.0.1:1)/billing"
`})
	e.vars["SUPERBIZ_CONFIG"] = cfg
	e.vars["SUPERBIZ_NOW"] = "2026-11-28T15:00:00Z"
	return dir, cfg
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// paymentRun is the payment-timeout diagnosis, as the model answered it.
func paymentRun(t *testing.T) []ollamatest.Turn {
	return append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))
}

// packFiles reads every file of the pack folder dir.
func packFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEvalPackRoundTrip(t *testing.T) {
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	ws, cfg := frozenWorkspace(t, e)
	srv.Script(paymentRun(t)...)
	r := e.run(t, "diagnose", "-o", "json", queryPayment)
	if out := decodeOutput(t, r); r.code != 0 || out.ReleaseOutcome != "SUCCESS" {
		t.Fatalf("the diagnosis: %s", r)
	}
	packs := filepath.Join(e.dir, "packs")
	r = e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "payment-pool",
		"--root-cause", "pool, connection", "--root-cause", "order_id")
	if r.code != 0 || !strings.Contains(r.stdout, "pack payment-pool written to") {
		t.Fatalf("eval pack: %s", r)
	}
	for _, want := range []string{"logs demo: 6 file(s)", "runbooks: 16 of 16 document(s), the whole set", "database orders: the SQLite file, 2 cell(s) masked"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q\n%s", want, r)
		}
	}
	// The same run frozen with a root cause it does not state (-o json).
	r = e.run(t, "-o", "json", "eval", "pack", "last", "--dir", packs, "--id", "payment-wrong", "--root-cause", "disk full, no space")
	var rep struct {
		Dir    string   `json:"dir"`
		ID     string   `json:"id"`
		Frozen []string `json:"frozen"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil || rep.ID != "payment-wrong" || rep.Dir != filepath.Join(packs, "payment-wrong") || len(rep.Frozen) != 3 {
		t.Fatalf("eval pack -o json (%v): %s", err, r)
	}
	// An existing pack is kept unless --force.
	if r := e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "payment-wrong", "--root-cause", "x"); r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("want exit 2 for an existing pack\n%s", r)
	}

	// The workspace and its configuration go; the packs stay.
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	delete(e.vars, "SUPERBIZ_CONFIG")
	delete(e.vars, "SUPERBIZ_NOW")
	files := packFiles(t, packs)
	for path, b := range files {
		for _, s := range append(slices.Clone(plantedSecrets), e.dir) {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
	}
	scenario := string(files[filepath.Join(packs, "payment-pool", "scenario.toml")])
	for _, want := range []string{`now = "2026-11-28T15:00:00Z"`, `question = "` + queryPayment + `"`, `outcome = "SUCCESS"`,
		`root_cause_any = [["pool", "connection"], ["order_id"]]`, `"query_logs:demo"`, `"query_mysql:orders"`, `"lookup_knowledge:runbooks/en/payment-timeout.md"`} {
		if !strings.Contains(scenario, want) {
			t.Errorf("scenario.toml lacks %s:\n%s", want, scenario)
		}
	}

	// The one runbook root (the demo's runbooks) is the pack's runbooks
	// folder, not runbooks/runbooks (issue 40 #16); a pack laid out the old
	// way, its [knowledge] path saying so, still reads and passes below.
	pool := filepath.Join(packs, "payment-pool")
	if _, ok := files[filepath.Join(pool, "runbooks", "en", "payment-timeout.md")]; !ok {
		t.Errorf("the pack lacks runbooks/en/payment-timeout.md")
	}
	if _, err := os.Stat(filepath.Join(pool, "runbooks", "runbooks")); !os.IsNotExist(err) {
		t.Errorf("the pack has runbooks/runbooks (%v)", err)
	}
	toml := string(files[filepath.Join(pool, "superbiz.toml")])
	if !strings.Contains(toml, `paths = ["runbooks"]`) {
		t.Fatalf("the pack's [knowledge] paths are not [\"runbooks\"]:\n%s", toml)
	}
	old := filepath.Join(pool, "runbooks.old")
	if err := os.Rename(filepath.Join(pool, "runbooks"), old); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(pool, "runbooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(old, filepath.Join(pool, "runbooks", "runbooks")); err != nil {
		t.Fatal(err)
	}
	toml = strings.Replace(toml, `paths = ["runbooks"]`, `paths = ["runbooks/runbooks"]`, 1)
	if err := os.WriteFile(filepath.Join(pool, "superbiz.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}

	// Played with the run's own answers: the right cause passes, the wrong fails.
	srv.Script(append(paymentRun(t), paymentRun(t)...)...)
	r = e.run(t, "eval", "--suite", packs, "-o", "json")
	res := decodeEval(t, r)
	if r.code != 0 || len(res.Packs) != 2 {
		t.Fatalf("eval: %s", r)
	}
	for _, p := range res.Packs {
		if p.Outcome != "SUCCESS" || p.Error != "" || p.Pass != (p.ID == "payment-pool") {
			t.Errorf("pack %s: outcome %s, pass %v, error %q\n%s", p.ID, p.Outcome, p.Pass, p.Error, r)
		}
	}
	if srv.Pending() != 0 {
		t.Errorf("%d scripted turns left: the packs did not replay the run", srv.Pending())
	}
}

// The guards: a run that is not a diagnosis, a demo run, a FAILED run
// without --outcome, a SUCCESS without --root-cause each exit 2 with why.
func TestEvalPackRefuses(t *testing.T) {
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	e.vars["OLLAMA_HOST"] = testenv.ClosedURL(t) // the demo's own transcript
	if r := e.run(t, "diagnose", "--demo", "-o", "json"); r.code != 0 {
		t.Fatalf("the demo run: %s", r)
	}
	e.vars["OLLAMA_HOST"] = srv.URL()
	packs := filepath.Join(e.dir, "packs")
	r := e.run(t, "eval", "pack", "last", "--dir", packs, "--outcome", "FALLBACK")
	if r.code != 2 || !strings.Contains(r.stderr, "demo workspace") {
		t.Errorf("a demo run: want exit 2 and why\n%s", r)
	}
	frozenWorkspace(t, e)
	srv.Script(paymentRun(t)...)
	if r := e.run(t, "diagnose", "-o", "json", queryPayment); r.code != 0 {
		t.Fatalf("%s", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"last"}, "--root-cause"},
		{[]string{"last", "--outcome", "MAYBE"}, "--outcome"},
		{[]string{"nosuchrun"}, "nosuchrun"},
		{[]string{"last", "--root-cause", " , "}, "holds no word"},
		{[]string{"last", "--id", "Bad_ID", "--root-cause", "pool"}, "--id"},
	} {
		r := e.run(t, append([]string{"eval", "pack", "--dir", packs}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: want exit 2 and %q\n%s", c.args, c.want, r)
		}
	}
	// A source the run read that the configuration no longer names.
	writeFiles(t, e.dir, map[string]string{"superbiz.toml": "[knowledge]\npaths = []\n"})
	if r := e.run(t, "eval", "pack", "last", "--dir", packs, "--root-cause", "pool"); r.code != 2 || !strings.Contains(r.stderr, "which the configuration") {
		t.Errorf("a source gone from the configuration: want exit 2 and why\n%s", r)
	}
	if _, err := os.Stat(packs); err == nil {
		entries, _ := os.ReadDir(packs)
		if len(entries) > 0 {
			t.Errorf("a refused freeze left %v", entries)
		}
	}
}

// metricsWorkspace configures a workspace reading the Prometheus at url as
// "main", clocked at the end of promtest's incident.
func metricsWorkspace(t *testing.T, e *env, url string) {
	t.Helper()
	cfg := filepath.Join(e.dir, "superbiz.toml")
	writeFiles(t, e.dir, map[string]string{"superbiz.toml": "[knowledge]\npaths = []\n\n[[metrics]]\nname = \"main\"\nurl = \"" + url + "\"\n"})
	e.vars["SUPERBIZ_CONFIG"] = cfg
	e.vars["SUPERBIZ_NOW"] = promtest.End.Format(time.RFC3339)
}

// latencyRun reads the checkout latency and concludes on its spike.
func latencyRun() []ollamatest.Turn {
	in := `{"source":"main","query":"max(` + strings.ReplaceAll(promtest.LatencySelector, `"`, `\"`) + `)","start":"` + promtest.Start.Format(time.RFC3339) + `","end":"` + promtest.End.Format(time.RFC3339) + `","step":"60s"}`
	return []ollamatest.Turn{
		ev("call_m1", "query_metrics", "", in),
		text(`{"conclusion":{"summary":"Checkout p99 latency spiked to 4.8 s at 09:10.","root_cause":"A latency spike of the checkout service at 09:10.","confidence":"MEDIUM"},"analysis":[{"type":"FINDING","claim":"The checkout p99 latency reached 4.8 s at 09:10, from 0.2 s before.","scope":"checkout latency 09:00-09:30","tool_call_ids":["call_m1"]}],"action_plan":[],"recommendations":[],"limitations":{"scope":"the checkout latency series","missing_info":["traces"]}}`),
		verdict("SUPPORTED"),
	}
}

// A run that read metrics: the samples of its selectors are frozen as
// metrics.om, served by a Prometheus of eval's own under the run's source
// name, and the pack grades the same outcome with the original server
// gone from the configuration; a server that cannot be reached at freeze
// time exits 4 and writes nothing.
func TestEvalPackMetrics(t *testing.T) {
	prom := promtest.Prometheus(t, promtest.PromOptions{})
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	metricsWorkspace(t, e, prom.URL)
	srv.Script(latencyRun()...)
	if r := e.run(t, "diagnose", "-o", "json", "why was checkout slow around 09:10?"); r.code != 0 {
		t.Fatalf("the diagnosis: %s", r)
	}
	packs := filepath.Join(e.dir, "packs")
	metricsWorkspace(t, e, testenv.ClosedURL(t))
	r := e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "latency", "--root-cause", "latency,slow")
	if r.code != 4 || !strings.Contains(r.stderr, "metrics source main") || !strings.Contains(r.stderr, "no pack was written") {
		t.Errorf("an unreachable metrics server: want exit 4 and why\n%s", r)
	}
	if entries, _ := os.ReadDir(packs); len(entries) > 0 {
		t.Errorf("a failed freeze left %v", entries)
	}
	metricsWorkspace(t, e, prom.URL)
	r = e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "latency", "--root-cause", "latency,slow")
	if r.code != 0 || !strings.Contains(r.stdout, "metrics main: 1 series, 31 sample(s)") {
		t.Fatalf("eval pack: %s", r)
	}
	om, err := os.ReadFile(filepath.Join(packs, "latency", "metrics.om"))
	if err != nil || !bytes.Contains(om, []byte(`service="checkout"} 4.8 `)) || !bytes.HasSuffix(om, []byte("# EOF\n")) {
		t.Errorf("metrics.om (%v):\n%s", err, om)
	}
	metricsWorkspace(t, e, testenv.ClosedURL(t))
	srv.Script(latencyRun()...)
	r = e.run(t, "eval", "--suite", packs, "-o", "json")
	res := decodeEval(t, r)
	if r.code != 0 || len(res.Packs) != 1 || !res.Packs[0].Pass || res.Packs[0].Outcome != "SUCCESS" {
		t.Errorf("eval: %s", r)
	}
}

// pgStatusCount is the statement the PostgreSQL run makes.
const pgStatusCount = `{"database":"shop","sql":"SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"}`

// pgRun is a diagnosis resting on one statement of the shop database; sql
// is the statement the model makes (pgStatusCount the first time).
func pgRun(input string) []ollamatest.Turn {
	return []ollamatest.Turn{
		ev("call_p1", "query_postgres", "", input),
		text(`{"conclusion":{"summary":"Orders pile up as pending.","root_cause":"Orders stay pending: the payment step does not complete them.","confidence":"LOW"},"analysis":[{"type":"FINDING","claim":"The shop database counts its orders by status, pending among them.","scope":"shop.orders","tool_call_ids":["call_p1"]}],"action_plan":[],"recommendations":[],"limitations":{"scope":"the orders table","missing_info":["payment logs"]}}`),
		verdict("SUPPORTED"),
	}
}

// A run that read PostgreSQL: the pack holds its statement and answer, not
// the server or the DSN (whose password is nowhere in it). Played again
// with the server gone from the configuration, the same statement gets the
// recorded answer and the pack passes; another statement is refused
// NOT_RECORDED, counted in the results.
func TestEvalPackRecordedPostgres(t *testing.T) {
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	dsn := os.Getenv("SUPERBIZ_TEST_POSTGRES_DSN")
	if dsn == "" {
		testenv.Missing(t, "SUPERBIZ_TEST_POSTGRES_DSN not set: source .ci/postgres.sh to freeze a PostgreSQL run", ".ci/run must source .ci/postgres.sh")
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	writeFiles(t, e.dir, map[string]string{"superbiz.toml": "[knowledge]\npaths = []\n\n[[databases]]\nname = \"shop\"\ndriver = \"postgres\"\ndsn = \"" + dsn + "\"\n"})
	e.vars["SUPERBIZ_CONFIG"] = cfg
	e.vars["SUPERBIZ_NOW"] = "2026-11-28T15:00:00Z"
	srv.Script(pgRun(pgStatusCount)...)
	if r := e.run(t, "diagnose", "-o", "json", "why do orders stay pending?"); r.code != 0 {
		t.Fatalf("the diagnosis: %s", r)
	}
	packs := filepath.Join(e.dir, "packs")
	r := e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "pending", "--root-cause", "pending")
	if r.code != 0 || !strings.Contains(r.stdout, "database shop (postgres): 1 recorded statement(s)") {
		t.Fatalf("eval pack: %s", r)
	}
	u, err := neturl.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	for path, b := range packFiles(t, packs) {
		for _, s := range []string{pw, u.Host, e.dir} {
			if s != "" && bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	delete(e.vars, "SUPERBIZ_CONFIG")
	// The statement written differently but canonically the same, then another one.
	same := strings.Replace(pgStatusCount, "SELECT status,", "select   status,", 1)
	other := `{"database":"shop","sql":"SELECT count(*) FROM orders"}`
	for _, c := range []struct {
		input       string
		pass        bool
		notRecorded int
	}{{same, true, 0}, {other, false, 1}} {
		srv.Script(pgRun(c.input)[:1]...)
		if !c.pass {
			// the refused call is no evidence: the model answers FALLBACK
			srv.Script(text(`{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"the orders table","missing_info":["the order counts"]}}`))
		} else {
			srv.Script(pgRun(c.input)[1:]...)
		}
		r := e.run(t, "eval", "--suite", packs, "-o", "json")
		res := decodeEval(t, r)
		if len(res.Packs) != 1 || res.Packs[0].Pass != c.pass || res.Packs[0].NotRecorded != c.notRecorded {
			t.Errorf("%s: want pass %v and not_recorded %d\n%s", c.input, c.pass, c.notRecorded, r)
		}
	}
}

// A run started from a firing alert is frozen with that alert: the pack's
// [alert] holds its labels, annotations and start and no question, and
// played again (Alertmanager gone) it is diagnosed from the alert with the
// run's clock and grades the same outcome.
func TestEvalPackAlert(t *testing.T) {
	am := promtest.StartAlertmanager(t)
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	_, cfg := frozenWorkspace(t, e)
	appendFile(t, cfg, "\n[alerts]\nurl = \""+am.URL+"\"\n")
	am.Post(t, promtest.Alert{
		Labels:      map[string]string{"alertname": "CheckoutPaymentTimeouts", "service": "order-service", "severity": "page"},
		Annotations: map[string]string{"summary": "payment calls time out, 504s"},
		StartsAt:    time.Date(2026, 11, 28, 14, 35, 0, 0, time.UTC),
	})
	am.WaitFiring(t, 1)
	srv.Script(paymentRun(t)...)
	if r := e.run(t, "diagnose", "--alert", "CheckoutPaymentTimeouts", "-o", "json"); r.code != 0 {
		t.Fatalf("the diagnosis: %s", r)
	}
	packs := filepath.Join(e.dir, "packs")
	if r := e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "alert", "--root-cause", "pool"); r.code != 0 {
		t.Fatalf("eval pack: %s", r)
	}
	scenario, err := os.ReadFile(filepath.Join(packs, "alert", "scenario.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`title = "alert CheckoutPaymentTimeouts"`, `now = "2026-11-28T15:00:00Z"`, "[alert]", `starts_at = "2026-11-28T14:35:00Z"`,
		`alertname = "CheckoutPaymentTimeouts"`, `severity = "page"`, `summary = "payment calls time out, 504s"`} {
		if !strings.Contains(string(scenario), want) {
			t.Errorf("scenario.toml lacks %s:\n%s", want, scenario)
		}
	}
	if strings.Contains(string(scenario), "question") {
		t.Errorf("an alert pack holds a question:\n%s", scenario)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	delete(e.vars, "SUPERBIZ_CONFIG")
	srv.Script(paymentRun(t)...)
	r := e.run(t, "eval", "--suite", packs, "-o", "json")
	if res := decodeEval(t, r); r.code != 0 || len(res.Packs) != 1 || !res.Packs[0].Pass {
		t.Errorf("eval: %s", r)
	}
	reqs := srv.ChatRequests()
	if last := reqs[len(reqs)-len(paymentRun(t))]; !strings.Contains(fmt.Sprint(last.Messages), `firing Alertmanager alert \"CheckoutPaymentTimeouts\"`) {
		t.Errorf("the pack's run did not start from the alert: %v", last.Messages)
	}
}
