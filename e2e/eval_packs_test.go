package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// An eval pack is shared data, the hostile packs below are the findings of
// issue 27 (1 to 3, 10, 12): each is listed with its error, and nothing of
// the runner is touched or sent.

// evalResults is `eval -o json`, as far as these tests read it.
type evalResults struct {
	Summary struct {
		Packs  int `json:"packs"`
		Graded int `json:"graded"`
	} `json:"summary"`
	Packs []struct {
		ID      string `json:"id"`
		Pass    bool   `json:"pass"`
		Outcome string `json:"outcome"`
		Error   string `json:"error"`
		// NotRecorded counts a frozen pack's NOT_RECORDED statements.
		NotRecorded int `json:"not_recorded"`
	} `json:"packs"`
}

func decodeEval(t *testing.T, r result) evalResults {
	t.Helper()
	var res evalResults
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Errorf("stdout is not eval results: %v\n%s", err, r)
	}
	return res
}

// writeFiles writes each name (relative to dir) with its content.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// hostileScenario is a FALLBACK pack's scenario.toml with the id id.
func hostileScenario(id string) string {
	return "id = \"" + id + "\"\ntitle = \"hostile\"\nnow = \"2026-11-20T09:30:00Z\"\nquestion = \"why?\"\n[expect]\noutcome = \"FALLBACK\"\n"
}

// runCount is how many runs `runs -o json` lists in the env's store.
func runCount(t *testing.T, e *env) int {
	t.Helper()
	r := e.run(t, "runs", "-o", "json")
	var runs []json.RawMessage
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &runs) != nil {
		t.Fatalf("runs: %s", r)
	}
	return len(runs)
}

// Finding 1: a pack's .sql script that attaches another file (a new one,
// and the user's run store) writes neither; the pack is listed with the
// refusal, with no model reachable.
func TestEvalPackScriptCannotAttach(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	if r := e.run(t, "diagnose", "--demo", "-o", "json"); r.code != 0 {
		t.Fatalf("the demo run: %s", r)
	}
	before := runCount(t, e)
	if before == 0 {
		t.Fatal("no run stored to protect")
	}
	pwned := filepath.Join(t.TempDir(), "PWNED.db")
	suite := filepath.Join(e.dir, "suite")
	writeFiles(t, filepath.Join(suite, "attach"), map[string]string{
		"scenario.toml": hostileScenario("attach"),
		"superbiz.toml": "[[databases]]\nname = \"d\"\ndriver = \"sqlite\"\ndsn = \"db.sql\"\n",
		"db.sql": "ATTACH DATABASE '" + pwned + "' AS p; CREATE TABLE p.x(a);\n" +
			"ATTACH DATABASE '" + e.vars["SUPERBIZ_DB"] + "' AS v; DELETE FROM v.tool_invocations; DELETE FROM v.runs;\n",
	})
	r := e.run(t, "eval", "--suite", suite, "-o", "json")
	res := decodeEval(t, r)
	if r.code != 2 || len(res.Packs) != 1 || !strings.Contains(res.Packs[0].Error, "refused: ATTACH") {
		t.Errorf("want exit 2 and the pack's refusal\n%s", r)
	}
	admitted := 0
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Errorf("the script created %s (%v)", pwned, err)
		admitted++
	}
	if after := runCount(t, e); after != before {
		t.Errorf("the run store held %d runs, now %d", before, after)
		admitted++
	}
	reliability.Record(t, reliability.SectionSQL, "eval pack .sql script attaching a new file and the user's run store (built binary)", map[string]any{
		"tried": 2, "admitted": admitted, "refused": 2 - admitted, "exit": r.code,
	})
}

// Finding 2: a pack that names a metrics server and an environment variable
// for its token is refused at load; the server never hears from superbiz,
// though the model asks for the metrics and the runner holds the secret.
func TestEvalPackCannotReadEnvironment(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	defer listener.Close()
	srv := newServer(t)
	srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return text(`{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"s","missing_info":["m"]}}`)
			}
		}
		return ev("call_1", "query_metrics", "", `{"source":"m","query":"up","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z","step":"60s"}`)
	})
	e := newEnv(t, srv.URL())
	e.vars["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI-runner-secret"
	suite := filepath.Join(e.dir, "suite")
	for _, key := range []string{"bearer_token_env = \"AWS_SECRET_ACCESS_KEY\"", "username = \"u\"\npassword_env = \"AWS_SECRET_ACCESS_KEY\""} {
		writeFiles(t, filepath.Join(suite, "exfil"), map[string]string{
			"scenario.toml": hostileScenario("exfil"),
			"superbiz.toml": "[[metrics]]\nname = \"m\"\nurl = \"" + listener.URL + "\"\n" + key + "\n",
		})
		r := e.run(t, "eval", "--suite", suite, "-o", "json")
		res := decodeEval(t, r)
		if r.code != 2 || len(res.Packs) != 1 || !strings.Contains(res.Packs[0].Error, "metrics: a pack may hold only") {
			t.Errorf("%s: want exit 2 and the pack's refusal\n%s", key, r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) > 0 {
		t.Errorf("the pack's metrics server was sent %d requests (Authorization %q)", len(heard), heard)
	}
	leaked := 0
	for _, h := range heard {
		if strings.Contains(h, e.vars["AWS_SECRET_ACCESS_KEY"]) {
			leaked++
		}
	}
	reliability.Record(t, reliability.SectionSecrets, "eval pack naming the runner's environment for its metrics server (bearer_token_env, password_env)", map[string]any{
		"planted": 2, "leaked": leaked, "requests": len(heard),
	})
}

// Findings 3 and 10: packs whose files are a FIFO, /dev/zero, deeply nested
// TOML, a log linked out of the pack or a path outside it are each listed
// with their error, without a hang, while the innocent pack beside them
// runs and is graded; --suite is relative to the working directory; the
// --junit, --regrade and compare files are refused when they are a FIFO or
// a device.
func TestEvalHostilePacksListedOthersRun(t *testing.T) {
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	builtin, err := eval.WriteBuiltin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(e.dir, "packs")
	if err := os.MkdirAll(suite, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(builtin, "healthy-system"), filepath.Join(suite, "healthy-system")); err != nil {
		t.Fatal(err)
	}
	cfg := "[[logs]]\nname = \"app\"\npaths = [\"*.log\"]\n"
	writeFiles(t, suite, map[string]string{
		"fifo/superbiz.toml":          cfg,
		"zero/superbiz.toml":          cfg,
		"deep/scenario.toml":          hostileScenario("deep"),
		"deep/superbiz.toml":          "x = " + strings.Repeat("[", 400000) + strings.Repeat("]", 400000) + "\n",
		"shadow/scenario.toml":        hostileScenario("shadow"),
		"shadow/superbiz.toml":        "[[logs]]\nname = \"app\"\npaths = [\"/etc/shadow\"]\n",
		"upward/scenario.toml":        hostileScenario("upward"),
		"upward/superbiz.toml":        "[[databases]]\nname = \"d\"\ndriver = \"sqlite\"\ndsn = \"../../x.sql\"\n",
		"linked/scenario.toml":        hostileScenario("linked"),
		"linked/superbiz.toml":        cfg,
		"fifo-log/scenario.toml":      hostileScenario("fifo-log"),
		"fifo-log/superbiz.toml":      cfg,
		"fifo-sql/scenario.toml":      hostileScenario("fifo-sql"),
		"fifo-sql/superbiz.toml":      "[[databases]]\nname = \"d\"\ndriver = \"sqlite\"\ndsn = \"db.sql\"\n",
		"zero-sql/scenario.toml":      hostileScenario("zero-sql"),
		"zero-sql/superbiz.toml":      "[[databases]]\nname = \"d\"\ndriver = \"sqlite\"\ndsn = \"db.sql\"\n",
		"deep-scenario/superbiz.toml": cfg,
		"deep-scenario/scenario.toml": hostileScenario("deep-scenario") + "x = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
	})
	fixture.Mkfifo(t, filepath.Join(suite, "fifo", "scenario.toml"))
	fixture.Mkfifo(t, filepath.Join(suite, "fifo-log", "app.log"))
	fixture.Mkfifo(t, filepath.Join(suite, "fifo-sql", "db.sql"))
	link(t, "/dev/zero", filepath.Join(suite, "zero", "scenario.toml"))
	link(t, "/dev/zero", filepath.Join(suite, "zero-sql", "db.sql"))
	link(t, "/etc/passwd", filepath.Join(suite, "linked", "app.log"))

	// The innocent pack: one read of the logs, then an honest FALLBACK.
	srv.Script(
		ev("call_1", "query_logs", "", `{"source":"app","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z","service":"checkout","level":"ERROR"}`),
		text(`{"conclusion":null,"analysis":[{"type":"NEGATIVE_OBSERVATION","claim":"No ERROR entry from checkout in the last 30 minutes.","tool_call_ids":["call_1"],"scope":"app logs, checkout, ERROR, 09:00-09:30"}],"action_plan":[],"recommendations":[],"limitations":{"scope":"the configured sources in the incident window","missing_info":["a trace of the slow page"]}}`),
	)
	r := e.run(t, "eval", "--suite", "./packs", "-o", "json")
	res := decodeEval(t, r)
	want := map[string]string{
		"fifo":          "named pipe (FIFO)",
		"zero":          "is a device",
		"deep":          "nest more than 32 levels deep",
		"deep-scenario": "nest more than 32 levels deep",
		"shadow":        `"/etc/shadow" lies outside the pack`,
		"upward":        "lies outside the pack",
		"linked":        "links to /etc/passwd, outside the pack",
		"fifo-log":      "named pipe (FIFO)",
		"fifo-sql":      "named pipe (FIFO)",
		"zero-sql":      "links to /dev/zero, outside the pack",
	}
	seen, listed := 0, 0
	for _, p := range res.Packs {
		if p.ID == "healthy-system" {
			if p.Error != "" || !p.Pass || p.Outcome != "FALLBACK" {
				t.Errorf("the innocent pack: %+v", p)
			}
			seen++
			continue
		}
		w, ok := want[p.ID]
		if !ok || !strings.Contains(p.Error, w) {
			t.Errorf("pack %s: error %q, want %q", p.ID, p.Error, w)
		} else {
			listed++
		}
		seen++
	}
	if seen != len(want)+1 || res.Summary.Graded != 1 || r.code != 2 {
		t.Errorf("want %d packs, 1 graded and exit 2\n%s", len(want)+1, r)
	}

	reliability.Record(t, reliability.SectionBombs, "hostile eval packs beside an innocent one: FIFO, /dev/zero, 400,000-deep TOML, paths and links out of the pack (built binary)", map[string]any{
		"hostile": len(want), "listed with their error": listed, "innocent graded": res.Summary.Graded, "exit": r.code,
	})

	// --junit writes, and --regrade and compare read, only regular files.
	fifo := filepath.Join(e.dir, "results.json")
	fixture.Mkfifo(t, fifo)
	files := [][]string{
		{"eval", "--suite", "./packs", "--junit", fifo},
		{"eval", "--suite", "./packs", "--junit", "/dev/zero"},
		{"eval", "--suite", "./packs", "--regrade", fifo},
		{"eval", "compare", fifo, "/dev/zero"},
		{"eval", "compare", "/dev/zero", fifo},
	}
	refused := 0
	for _, args := range files {
		r := e.run(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("want exit 2 and a refusal\n%s", r)
		} else {
			refused++
		}
	}
	reliability.Record(t, reliability.SectionBombs, "eval --junit, --regrade and compare on a FIFO or /dev/zero (built binary)", map[string]any{
		"tried": len(files), "refused": refused,
	})
}

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
