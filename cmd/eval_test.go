package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"
)

// transcript is a scripted model for one built-in pack
// (testdata/eval/ID.json): the tool calls, then a good answer that must
// pass and a bad one that must fail the named checks.
type transcript struct {
	Calls []scriptedCall `json:"calls"`
	Good  scriptedAnswer `json:"good"`
	Bad   scriptedAnswer `json:"bad"`
}

type scriptedCall struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type scriptedAnswer struct {
	// Calls replace the transcript's calls when set.
	Calls []scriptedCall  `json:"calls"`
	Draft json.RawMessage `json:"draft"`
	// Verdict is the semantic guard's answer for a draft with a
	// conclusion; "" is SUPPORTED.
	Verdict string   `json:"verdict"`
	Fails   []string `json:"fails"`
}

// turns are the model's answers: one call per turn (call_1, call_2, …,
// each evaluating the one before), the draft, and the guard's verdict
// when the draft concludes.
func (s scriptedAnswer) turns(calls []scriptedCall) []ollamatest.Turn {
	if s.Calls != nil {
		calls = s.Calls
	}
	var out []ollamatest.Turn
	for i, c := range calls {
		prev := ""
		if i > 0 {
			prev = fmt.Sprintf(`"previous_observation":{"tool_call_id":"call_%d","evaluation":"GAINED"},`, i)
		}
		out = append(out, ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{
			ID: fmt.Sprintf("call_%d", i+1), Name: c.Name, Args: `{` + prev + `"input":` + string(c.Input) + `}`,
		}}})
	}
	out = append(out, ollamatest.Turn{Content: []string{string(s.Draft)}, PromptEvalCount: 900, EvalCount: 200})
	var d struct {
		Conclusion json.RawMessage `json:"conclusion"`
	}
	if json.Unmarshal(s.Draft, &d) == nil && len(d.Conclusion) > 0 && string(d.Conclusion) != "null" {
		v := s.Verdict
		if v == "" {
			v = "SUPPORTED"
		}
		out = append(out, ollamatest.Turn{Content: []string{`{"verdict":"` + v + `","reasons":["scripted verdict"]}`}})
	}
	return out
}

// evalOnce runs one built-in pack on a scripted answer and returns its result.
func evalOnce(t *testing.T, id string, turns []ollamatest.Turn) eval.PackResult {
	t.Helper()
	srv := ollamatest.New(t)
	srv.Script(turns...)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, out, errOut := cli(t, env, "eval", "--suite", "builtin", "--filter", id, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var res eval.Results
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Packs) != 1 {
		t.Fatalf("%d packs, want 1\n%s", len(res.Packs), out)
	}
	if srv.Pending() != 0 {
		t.Errorf("%d scripted turns were not used\nstderr %s", srv.Pending(), errOut)
	}
	if !strings.Contains(errOut, "eval: [1/1] "+id+" repeat 1/1") {
		t.Errorf("no progress line on stderr:\n%s", errOut)
	}
	return res.Packs[0]
}

// Every built-in pack has a good transcript that passes and a bad one that
// fails for the reason it names: every grader can fail.
func TestBuiltinPacksGoodAndBad(t *testing.T) {
	testenv.SkipShort(t, "48 scripted evals, two real Prometheus servers")
	dir, err := eval.WriteBuiltin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	packs, err := eval.LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packs {
		t.Run(p.ID, func(t *testing.T) {
			if p.Err != nil {
				t.Fatal(p.Err)
			}
			if _, err := os.Stat(filepath.Join(p.Dir, "metrics.om")); err == nil {
				promtest.Binary(t, "promtool")
				promtest.Binary(t, "prometheus")
			}
			b, err := os.ReadFile(filepath.Join("testdata", "eval", p.ID+".json"))
			if err != nil {
				t.Fatalf("no transcript: %v", err)
			}
			var tr transcript
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatal(err)
			}
			good := evalOnce(t, p.ID, tr.Good.turns(tr.Calls))
			if !good.Pass || good.Outcome != string(p.Expect.Outcome) {
				t.Errorf("good transcript: pass %v, outcome %s, failed %v", good.Pass, good.Outcome, good.FailedChecks)
			}
			if len(tr.Bad.Fails) == 0 {
				t.Fatal("the bad transcript names no check it fails")
			}
			bad := evalOnce(t, p.ID, tr.Bad.turns(tr.Calls))
			var failed []string
			for _, f := range bad.FailedChecks {
				failed = append(failed, f.Check)
			}
			if bad.Pass || !slices.Equal(failed, tr.Bad.Fails) {
				t.Errorf("bad transcript: pass %v, failed checks %v, want %v (%v)", bad.Pass, failed, tr.Bad.Fails, bad.FailedChecks)
			}
		})
	}
}

// loadTranscript reads a built-in pack's scripted transcript.
func loadTranscript(t testing.TB, id string) transcript {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "eval", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// A broken pack is listed with its error (file and key) and makes the exit
// 2 while the other packs still run; --junit writes a testcase per pack;
// --record keeps the runs so --regrade grades them again with no model,
// against the packs as they are now; --min-pass turns a low score into
// exit 1; compare shows the pack that changed.
func TestEvalCommand(t *testing.T) {
	const id = "tls-expiry-checkout"
	suite, err := eval.WriteBuiltin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range mustReadDir(t, suite) {
		if e != id {
			if err := os.RemoveAll(filepath.Join(suite, e)); err != nil {
				t.Fatal(err)
			}
		}
	}
	broken := filepath.Join(suite, "broken")
	fixture.WriteFile(t, filepath.Join(broken, "scenario.toml"), "id = \"broken\"\ntitle = \"t\"\nnow = \"2026-11-20T09:30:00Z\"\nquestion = \"q\"\n[expect]\noutcome = \"FALLBACK\"\nsevere = true\n")
	fixture.WriteFile(t, filepath.Join(broken, "superbiz.toml"), "")
	tr := loadTranscript(t, id)
	srv := ollamatest.New(t)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	dir := t.TempDir()
	junit := filepath.Join(dir, "eval.xml")

	srv.Script(tr.Good.turns(tr.Calls)...)
	code, out, errOut := cli(t, env, "eval", "--suite", suite, "--record", "-o", "json", "--junit", junit)
	if code != ExitUsage || !strings.Contains(errOut, "1 pack(s) could not be loaded or run") {
		t.Fatalf("exit %d, want 2\n%s", code, errOut)
	}
	var res eval.Results
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Packs) != 2 || res.Packs[0].Error == "" || !strings.Contains(res.Packs[0].Error, filepath.Join(broken, "scenario.toml")) ||
		!strings.Contains(res.Packs[0].Error, "expect.severe") || !res.Packs[1].Pass || len(res.Packs[1].RunIDs) != 1 {
		t.Fatalf("results %s", out)
	}
	if res.Summary.Packs != 2 || res.Summary.Graded != 1 || res.Summary.PassAt1 != eval.RateOf(1) {
		t.Errorf("summary %+v", res.Summary)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testsuite name="superbiz eval" tests="2" failures="0" errors="1" skipped="0">`) {
		t.Errorf("junit %s %v", x, err)
	}
	good := filepath.Join(dir, "good.json")
	fixture.WriteFile(t, good, out)
	if err := os.RemoveAll(broken); err != nil {
		t.Fatal(err)
	}

	// Regrade with no model: the same grade, then the grade of the pack as edited.
	env["OLLAMA_HOST"] = testenv.ClosedURL(t)
	code, out, errOut = cli(t, env, "eval", "--suite", suite, "--regrade", good, "-o", "json")
	if code != ExitUsage || !strings.Contains(out, `"pass": true`) || !strings.Contains(out, res.Packs[1].RunIDs[0]) {
		t.Fatalf("regrade: exit %d\n%s\n%s", code, out, errOut)
	}
	scenario := filepath.Join(suite, id, "scenario.toml")
	b, err := os.ReadFile(scenario)
	if err != nil {
		t.Fatal(err)
	}
	fixture.WriteFile(t, scenario, strings.Replace(string(b), `forbidden = [`, `forbidden = ["(?i)x509", `, 1))
	code, out, errOut = cli(t, env, "eval", "--suite", suite, "--filter", id, "--regrade", good, "-o", "markdown")
	if code != ExitUsage || !strings.Contains(out, "| tls-expiry-checkout | SUCCESS | SUCCESS | FAIL |") || !strings.Contains(out, "forbidden: (?i)x509 matches") {
		t.Fatalf("regrade after the edit: exit %d\n%s\n%s", code, out, errOut)
	}
	fixture.WriteFile(t, scenario, string(b))

	// A bad answer: exit 0 without --min-pass, 1 below it.
	env["OLLAMA_HOST"] = srv.URL()
	srv.Script(tr.Bad.turns(tr.Calls)...)
	code, out, errOut = cli(t, env, "eval", "--suite", suite, "-o", "json")
	if code != ExitOK || !strings.Contains(out, `"pass": false`) {
		t.Fatalf("bad: exit %d\n%s\n%s", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.json")
	fixture.WriteFile(t, bad, out)
	srv.Script(tr.Bad.turns(tr.Calls)...)
	code, _, errOut = cli(t, env, "eval", "--suite", suite, "--min-pass", "0.5")
	if code != ExitFailed || !strings.Contains(errOut, "pass@1 0 is below --min-pass 0.5") {
		t.Fatalf("--min-pass: exit %d\n%s", code, errOut)
	}

	// --min-pass passes at equality.
	srv.Script(tr.Good.turns(tr.Calls)...)
	if code, _, errOut = cli(t, env, "eval", "--suite", suite, "--min-pass", "1"); code != ExitOK {
		t.Fatalf("--min-pass 1 with pass@1 1: exit %d\n%s", code, errOut)
	}

	// compare: one column per file headed by its model, a row per rate,
	// then the packs whose grade differs (not the one graded alike).
	code, out, errOut = cli(t, env, "eval", "compare", good, bad, good)
	lines := strings.Split(out, "\n")
	if code != ExitOK || len(lines) < 13 || strings.Fields(lines[0])[0] != "qwen3:8b" || len(strings.Fields(lines[0])) != 3 ||
		!strings.HasPrefix(lines[6], "pass@1") || strings.Join(strings.Fields(lines[6]), " ") != "pass@1 1.00 0.00 1.00" ||
		strings.Join(strings.Fields(lines[8]), " ") != "false success n/a n/a n/a" ||
		strings.Join(strings.Fields(lines[11]), " ") != "broken error absent error" ||
		!strings.Contains(lines[12], "tls-expiry-checkout") || !strings.Contains(lines[12], "fail: root_cause,forbidden,evidence (SUCCESS)") {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = cli(t, env, "eval", "compare", good, bad, "-o", "markdown")
	if code != ExitOK || !strings.HasPrefix(out, "|  | qwen3:8b | qwen3:8b |\n| --- | --- | --- |\n") || !strings.Contains(out, "| false success | n/a | n/a |") {
		t.Fatalf("compare -o markdown: exit %d\n%s", code, out)
	}
	code, out, _ = cli(t, env, "eval", "compare", good, bad, "-o", "json")
	var cmp eval.Comparison
	if err := json.Unmarshal([]byte(out), &cmp); code != ExitOK || err != nil || len(cmp.Files) != 2 || cmp.Files[0].Model.Name != "qwen3:8b" ||
		!strings.Contains(out, `"values": [
        null,
        null
      ]`) || len(cmp.Packs) != 2 {
		t.Fatalf("compare -o json: exit %d %v\n%s", code, err, out)
	}
	if code, _, errOut = cli(t, env, "eval", "compare", good); code != ExitUsage || !strings.Contains(errOut, "2 to 16 results files") {
		t.Fatalf("compare with one file: exit %d\n%s", code, errOut)
	}
}

// A results file says what it measured (the model, provider and URL, the
// version, the start), and the text and Markdown views open with it.
func TestEvalResultsSayWhatWasMeasured(t *testing.T) {
	const id = "tls-expiry-checkout"
	tr := loadTranscript(t, id)
	srv := ollamatest.New(t)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = "http://admin:hunter2@" + strings.TrimPrefix(srv.URL(), "http://")
	env["SUPERBIZ_MODEL"] = "qwen3:8b"
	srv.Script(tr.Good.turns(tr.Calls)...)
	res, out := evalJSON(t, env, "--filter", id)
	m := res.Summary.Model
	started, err := time.Parse(time.RFC3339, res.Summary.StartedAt)
	if m.Name != "qwen3:8b" || m.Provider != "ollama" || m.URL != "http://admin:"+egress.Marker+"@"+strings.TrimPrefix(srv.URL(), "http://") ||
		!strings.HasPrefix(res.Summary.SuperbizVersion, "dev") || err != nil || time.Since(started) > time.Hour || strings.Contains(out, "hunter2") {
		t.Errorf("summary %+v (%v)\n%s", res.Summary, err, out)
	}
	for _, format := range []string{"text", "markdown"} {
		srv.Script(tr.Good.turns(tr.Calls)...)
		code, out, errOut := cli(t, env, "eval", "--filter", id, "-o", format)
		first, _, _ := strings.Cut(out, "\n")
		if code != ExitOK || !strings.Contains(strings.ToLower(first), "model qwen3:8b (ollama, http://admin:") || !strings.Contains(first, "superbiz dev") || strings.Contains(out, "hunter2") {
			t.Errorf("-o %s: exit %d, first line %q\n%s", format, code, first, errOut)
		}
	}
}

// A rate with no denominator is null: JSON null, n/a in text, Markdown and
// JUnit, and never a pass of --min-pass. The regraded results hold one
// skipped pack, so nothing is graded.
func TestEvalNullRates(t *testing.T) {
	env := diagnoseEnv(t)
	dir := t.TempDir()
	prev := filepath.Join(dir, "prev.json")
	fixture.WriteFile(t, prev, `{"summary": {"model": {"name": "m", "provider": "ollama", "url": "http://x"}, "pass_at_1": null}, "packs": [
		{"id": "jvm-gc-pauses", "expected_outcome": "SUCCESS", "skipped": true, "skip_reason": "promtool is not on PATH", "run_ids": []}]}`)
	junit := filepath.Join(dir, "eval.xml")
	code, out, errOut := cli(t, env, "eval", "--regrade", prev, "-o", "json", "--junit", junit)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, k := range []string{"pass_at_1", "pass_hat_k", "false_success_rate", "abstention_rate", "evidence_recall"} {
		if !strings.Contains(out, `"`+k+`": null`) {
			t.Errorf("%s is not null\n%s", k, out)
		}
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<property name="pass_at_1" value="n/a"></property>`) || !strings.Contains(string(x), `<property name="model" value="m"></property>`) {
		t.Errorf("junit %s %v", x, err)
	}
	code, out, _ = cli(t, env, "eval", "--regrade", prev)
	if code != ExitOK || !strings.Contains(out, "pass@1 n/a · pass^k n/a · false success n/a · abstention n/a · evidence recall n/a") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	code, out, _ = cli(t, env, "eval", "--regrade", prev, "-o", "markdown")
	if code != ExitOK || !strings.Contains(out, "| 1 | 0 | 1 | n/a | n/a | n/a | n/a | n/a |") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
	code, _, errOut = cli(t, env, "eval", "--regrade", prev, "--min-pass", "0")
	if code != ExitFailed || !strings.Contains(errOut, "pass@1 is n/a (no pack was graded)") {
		t.Errorf("--min-pass 0 with nothing graded: exit %d\n%s", code, errOut)
	}
}

// evalJSON runs `eval ARGS -o json`, which must exit 0, and decodes its results.
func evalJSON(t *testing.T, env map[string]string, args ...string) (eval.Results, string) {
	t.Helper()
	code, out, errOut := cli(t, env, append(append([]string{"eval"}, args...), "-o", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var res eval.Results
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return res, out
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A draft the semantic guard stops is a guard block: the run falls back,
// the pack fails on its outcome and the summary counts the block.
func TestEvalCountsGuardBlocks(t *testing.T) {
	const id = "tls-expiry-checkout"
	tr := loadTranscript(t, id)
	blocked := tr.Good
	blocked.Verdict = "UNSUPPORTED"
	srv := ollamatest.New(t)
	srv.Script(blocked.turns(tr.Calls)...)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	res, _ := evalJSON(t, env, "--filter", id)
	if res.Summary.GuardBlocks != 1 || res.Packs[0].Outcome != "FALLBACK" || res.Packs[0].Pass || res.Packs[0].FailedChecks[0].Check != eval.CheckOutcome {
		t.Errorf("summary %+v, pack %+v", res.Summary, res.Packs[0])
	}
}

// Ctrl-C during an eval stops it with the cancellation's exit code, not
// with a score of cancelled runs.
func TestEvalCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := ollamatest.New(t)
	srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
		cancel()
		return ollamatest.Turn{Content: []string{"{}"}}
	})
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"eval", "--filter", "en", "-o", "json"}, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	if code != ExitCancelled || out.Len() != 0 || errOut.String() != "superbiz: cancelled\n" {
		t.Fatalf("exit %d, want %d and \"superbiz: cancelled\"\nstdout %s\nstderr %q", code, ExitCancelled, out.String(), errOut.String())
	}
}

// --min-pass is a fraction from 0 to 1: NaN, infinities, negatives and a
// percentage are usage errors before anything runs.
func TestEvalMinPassBounds(t *testing.T) {
	env := diagnoseEnv(t)
	for _, v := range []string{"NaN", "nan", "+Inf", "-Inf", "-0.1", "1.01", "80"} {
		code, out, errOut := cli(t, env, "eval", "--min-pass", v)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "give a fraction from 0 to 1") {
			t.Errorf("--min-pass %s: exit %d\nstdout %s\nstderr %s", v, code, out, errOut)
		}
	}
}

// A pack directory's name is shown as `runs` shows stored text: its
// terminal escapes and newlines never reach the terminal or the table.
func TestEvalCleansPackNames(t *testing.T) {
	suite := t.TempDir()
	evil := filepath.Join(suite, "evil\x1b]0;owned\x07\x1b[2J\nPASS  forged-pack")
	fixture.WriteFile(t, filepath.Join(evil, "scenario.toml"), "id = \"Bad Id\"\n")
	fixture.WriteFile(t, filepath.Join(evil, "superbiz.toml"), "")
	env := diagnoseEnv(t)
	for _, format := range []string{"text", "markdown"} {
		code, out, errOut := cli(t, env, "eval", "--suite", suite, "-o", format)
		if code != ExitUsage {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\nPASS  forged") || !strings.Contains(out, "evil") {
			t.Errorf("-o %s printed the raw name:\n%q", format, out)
		}
	}
}
