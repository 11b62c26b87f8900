package cmd

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/reliability"
)

// The secrets planted in one diagnosis: in the user's query, in the SQL the
// model writes, in its thinking, in its draft and in the semantic guard's
// reasons. Each is a shape the redaction rules recognise.
const (
	secretQuery    = "Qu3ryK3y9x"  // api_key=… in the question
	secretSQL      = "S3lectPw41"  // password=… inside a SQL literal
	secretMySQL    = "My5qlPw66"   // mysql -uroot -p… inside a SQL literal
	secretThinking = "Th1nkPw33"   // password=… in the model's thinking
	secretDraft    = "Dr4ftK3y77"  // api_key=… in a recommendation
	secretReason   = "R3as0nT0k55" // token=… in the guard's reasons
	querySecretArg = "api_key=" + secretQuery + " payment timeouts on order-service since 14:00 \x1b[2J\x00please"
)

var plantedAll = []string{secretQuery, secretSQL, secretMySQL, secretThinking, secretDraft, secretReason}

// secretTurns is the demo transcript as an Ollama server plays it, with the
// secrets planted: the same tools run on the demo workspace and find the same
// evidence, so the run is released SUCCESS and replays.
func secretTurns(t *testing.T) []ollamatest.Turn {
	t.Helper()
	var turns []ollamatest.Turn
	for i, r := range demo.Transcript() {
		turn := ollamatest.Turn{PromptEvalCount: r.Usage.PromptTokens, EvalCount: r.Usage.CompletionTokens}
		for _, c := range r.Message.ToolCalls {
			args := string(c.Arguments)
			if c.Name == "query_mysql" {
				// The literals come back in every row, so they are in the
				// observation too.
				const sel = "SELECT ts,"
				if !strings.Contains(args, sel) {
					t.Fatalf("demo SQL changed: %s", args)
				}
				args = strings.Replace(args, sel, "SELECT 'password="+secretSQL+"' AS note, 'mysql -uroot -p"+secretMySQL+"' AS cmd, ts,", 1)
				turn.Thinking = []string{"Check slow queries; the DBA said password=" + secretThinking + " works."}
			}
			turn.ToolCalls = append(turn.ToolCalls, ollamatest.ToolCall{ID: c.ID, Name: c.Name, Args: args})
		}
		if content := r.Message.Content; content != "" {
			switch {
			case strings.Contains(content, `"recommendations":[`):
				content = strings.Replace(content, `"recommendations":[`, `"recommendations":["Rotate the exposed key api_key=`+secretDraft+` after the fix.",`, 1)
			case strings.Contains(content, `"verdict"`):
				content = strings.Replace(content, `"reasons":["`, `"reasons":["token=`+secretReason+` seen. `, 1)
			default:
				t.Fatalf("demo turn %d changed: %s", i, content)
			}
			turn.Content = []string{content}
		}
		turns = append(turns, turn)
	}
	return turns
}

// leaks lists the planted secrets found in b.
func leaks(b []byte, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if bytes.Contains(b, []byte(s)) {
			out = append(out, s)
		}
	}
	return out
}

// storeFileLeaks lists the planted secrets in the raw bytes of the run store
// file and its WAL and shared-memory files.
func storeFileLeaks(t *testing.T, path string, secrets []string) []string {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatalf("read %s: %v", p, err)
		}
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatalf("no run store at %s", path)
	}
	return leaks(all, secrets)
}

// TestPlantedSecretsNeverLeave runs one diagnosis with secrets planted in the
// query, the model's SQL, thinking and draft, and the guard's reasons, then
// looks for every one in every sink: the model requests, the run store file
// (with its WAL), stdout (text and -o json), the stderr progress lines,
// `runs`, `runs show` and `replay` — which must still say identical.
func TestPlantedSecretsNeverLeave(t *testing.T) {
	env := diagnoseEnv(t)
	srv := ollamatest.New(t)
	env["OLLAMA_HOST"] = srv.URL()
	dbPath := env["SUPERBIZ_DB"]
	type sink struct {
		name    string
		planted []string
		out     []byte
	}
	var sinks []sink
	add := func(name string, planted []string, out ...string) {
		sinks = append(sinks, sink{name, planted, []byte(strings.Join(out, "\n"))})
	}

	srv.Script(secretTurns(t)...)
	code, out, errOut := cli(t, env, "--demo", "--no-tui", "diagnose", querySecretArg)
	if code != ExitOK || !strings.Contains(out, "SUCCESS · run r_") {
		t.Fatalf("diagnose: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "[tool] query_mysql (orders: ") || !strings.Contains(errOut, "password=[REDACTED]") {
		t.Errorf("the progress line does not show the redacted SQL:\n%s", errOut)
	}
	if !strings.Contains(out, "api_key=[REDACTED] after the fix") {
		t.Errorf("the answer lost the redacted recommendation:\n%s", out)
	}
	add("stdout (text)", plantedAll, out)
	add("stderr progress", plantedAll, errOut)

	srv.Script(secretTurns(t)...)
	code, jsonOut, errOut := cli(t, env, "--demo", "diagnose", "-o", "json", querySecretArg)
	if code != ExitOK {
		t.Fatalf("diagnose -o json: exit %d\n%s\n%s", code, jsonOut, errOut)
	}
	run := jsonObject(t, jsonOut)
	id := run["run_id"].(string)
	add("stdout (-o json)", plantedAll, jsonOut)

	// What the model was sent: the query arrives redacted and without its
	// control characters, the observations (whose rows repeat the SQL's
	// literals) redacted. (The model's own tool calls and draft come back to
	// it in its conversation as it wrote them: its words, not a leak to it.)
	var sent []string
	for _, r := range srv.ChatRequests() {
		for _, m := range r.Messages {
			if m.Role == "user" || m.Role == "system" || m.Role == "tool" {
				sent = append(sent, m.Content)
			}
		}
	}
	req := strings.Join(sent, "\n")
	if !strings.Contains(req, `api_key=[REDACTED] payment timeouts`) {
		t.Errorf("the model was not sent the redacted query")
	}
	if strings.ContainsAny(req, "\x1b\x00") {
		t.Errorf("the model was sent control characters of the query")
	}
	add("model request", []string{secretQuery, secretSQL, secretMySQL}, req)

	code, list, _ := cli(t, env, "runs")
	code2, listJSON, _ := cli(t, env, "runs", "-o", "json")
	if code != ExitOK || code2 != ExitOK || !strings.Contains(list, "api_key=[REDACTED]") {
		t.Fatalf("runs: exit %d/%d\n%s", code, code2, list)
	}
	code, show, _ := cli(t, env, "runs", "show", id)
	code2, showMD, _ := cli(t, env, "runs", "show", id, "-o", "markdown")
	code3, showJSON, _ := cli(t, env, "runs", "show", id, "-o", "json")
	if code != ExitOK || code2 != ExitOK || code3 != ExitOK {
		t.Fatalf("runs show: exit %d/%d/%d", code, code2, code3)
	}
	if !strings.Contains(show, "password=[REDACTED]") || !strings.Contains(show, "token=[REDACTED]") {
		t.Errorf("runs show lacks the redacted SQL or guard reason:\n%s", show)
	}
	add("runs show", plantedAll, list, listJSON, show, showMD, showJSON)

	code, rep, repErr := cli(t, env, "--demo", "replay", id)
	if m := replayLine.FindStringSubmatch(rep); code != ExitOK || m == nil || m[1] != "identical" {
		t.Fatalf("replay of the redacted recording: exit %d\n%s\n%s", code, rep, repErr)
	}
	code, repJSON, _ := cli(t, env, "--demo", "replay", id, "-o", "json")
	if code != ExitOK || jsonObject(t, repJSON)["identical"] != true {
		t.Fatalf("replay -o json: exit %d\n%s", code, repJSON)
	}
	add("replay", plantedAll, rep, repErr, repJSON)
	add("run store file", plantedAll, "")

	failed := false
	for _, s := range sinks {
		var leaked []string
		if s.name == "run store file" {
			leaked = storeFileLeaks(t, dbPath, s.planted)
		} else {
			leaked = leaks(s.out, s.planted)
		}
		reliability.Record(t, reliability.SectionSecrets, s.name, map[string]any{"planted": len(s.planted), "leaked": len(leaked)})
		if len(leaked) > 0 {
			failed = true
			t.Errorf("%s leaks %q", s.name, leaked)
		}
	}
	if failed {
		t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// TestOldRawRecordsAreShownRedacted: a run recorded before redaction at rest
// holds its secrets raw. `runs` and `runs show` show it redacted, and its
// replay (the raw SQL replayed, compared in redacted form) is identical and
// shows no secret either.
func TestOldRawRecordsAreShownRedacted(t *testing.T) {
	env := diagnoseEnv(t)
	srv := ollamatest.New(t)
	env["OLLAMA_HOST"] = srv.URL()
	srv.Script(secretTurns(t)...)
	code, out, errOut := cli(t, env, "--demo", "diagnose", "-o", "json", querySecretArg)
	if code != ExitOK {
		t.Fatalf("diagnose: exit %d\n%s\n%s", code, out, errOut)
	}
	id := jsonObject(t, out)["run_id"].(string)

	// Put the secrets back where an old store held them.
	ctx := context.Background()
	db, err := sql.Open("sqlite", env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	unredact := func(col string) string {
		return "replace(replace(replace(" + col + ", 'password=[REDACTED]', 'password=" + secretSQL + "'), '-p[REDACTED]', '-p" + secretMySQL + "'), 'api_key=[REDACTED]', 'api_key=" + secretQuery + "')"
	}
	for _, q := range []string{
		"UPDATE runs SET query = " + unredact("query") + ", answer = " + unredact("answer") + ", error_message = 'secret=" + secretReason + "' WHERE id = ?",
		"UPDATE model_rounds SET request = " + unredact("request") + ", response = " + unredact("response") + " WHERE run_id = ?",
		"UPDATE tool_invocations SET canonical_input = " + unredact("canonical_input") + ", input_summary = " + unredact("input_summary") + ", observation = " + unredact("observation") + " WHERE run_id = ?",
		"UPDATE guard_reviews SET reasons = '[\"token=" + secretReason + "\"]' WHERE run_id = ? AND guard = 'SEMANTIC'",
	} {
		if _, err := db.ExecContext(ctx, q, id); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var raw string
	if err := db.QueryRowContext(ctx, "SELECT canonical_input FROM tool_invocations WHERE run_id = ? AND tool = 'query_mysql'", id).Scan(&raw); err != nil || !strings.Contains(raw, secretSQL) {
		t.Fatalf("the old record was not rebuilt: %q %v", raw, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	var shown []string
	for _, args := range [][]string{{"runs"}, {"runs", "-o", "json"}, {"runs", "show", id}, {"runs", "show", id, "-o", "markdown"}, {"runs", "show", id, "-o", "json"}} {
		code, out, errOut := cli(t, env, args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d\n%s", args, code, errOut)
		}
		shown = append(shown, out, errOut)
	}
	code, rep, repErr := cli(t, env, "--demo", "replay", id)
	if m := replayLine.FindStringSubmatch(rep); code != ExitOK || m == nil || m[1] != "identical" {
		t.Errorf("replay of the raw recording: exit %d\n%s\n%s", code, rep, repErr)
	}
	code, repJSON, _ := cli(t, env, "--demo", "replay", id, "-o", "json")
	if code != ExitOK {
		t.Errorf("replay -o json: exit %d\n%s", code, repJSON)
	}
	secrets := []string{secretQuery, secretSQL, secretMySQL, secretReason}
	for name, b := range map[string]string{"runs show (old record)": strings.Join(shown, "\n"), "replay (old record)": rep + repErr + repJSON} {
		leaked := leaks([]byte(b), secrets)
		reliability.Record(t, reliability.SectionSecrets, name, map[string]any{"planted": len(secrets), "leaked": len(leaked)})
		if len(leaked) > 0 {
			t.Errorf("%s leaks %q:\n%s", name, leaked, b)
		}
	}
}
