package usecase

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/harness"
)

// storeLeaks lists the secrets found in the raw bytes of the run store file
// and its WAL and shared-memory files.
func storeLeaks(t *testing.T, path string, secrets []string) []string {
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
	return found(all, secrets)
}

func found(b []byte, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if bytes.Contains(b, []byte(s)) {
			out = append(out, s)
		}
	}
	return out
}

// TestChatAnswersKeepSecretsOut: a question carrying a secret and control
// characters, and a model that echoes planted secrets in its thinking and its
// answer (a SYSTEM_CHAT reply, a knowledge answer's items and limitations):
// none reaches the output, the run store file or, for the question's, the
// model.
func TestChatAnswersKeepSecretsOut(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		const querySecret = "Qu3ryK3y9x"
		query := "api_key=" + querySecret + " what does HikariPool connection is not available mean?\x1b]0;title\x07\x00"
		tests := []struct {
			intent  string
			planted []string
			turn    func(req ollamatest.ChatRequest) ollamatest.Turn
			want    string // a redacted form the answer keeps
		}{
			{
				intent:  "SYSTEM_CHAT",
				planted: []string{"Ch4tPw11", "ghp_1234567890abcdefghijABCDEFGHIJ123456", "Th1nkPw22"},
				turn: func(ollamatest.ChatRequest) ollamatest.Turn {
					return ollamatest.Turn{
						Thinking: []string{"they asked about password=Th1nkPw22"},
						Content:  []string{"Your DSN app:Ch4tPw11@tcp(db:3306)/shop looks fine; never paste ghp_1234567890abcdefghijABCDEFGHIJ123456 here."},
					}
				},
				want: "app:[REDACTED]@tcp(db:3306)/shop",
			},
			{
				intent:  "KNOWLEDGE_QUERY",
				planted: []string{"Kn0wPw33", "L1m1tT0k44", "Th1nkPw55"},
				turn: func(req ollamatest.ChatRequest) ollamatest.Turn {
					_, id, docs, err := lookupIn(req)
					if err != nil || len(docs) == 0 {
						return ollamatest.Turn{Fault: ollamatest.FaultBadRequest}
					}
					return ollamatest.Turn{
						Thinking: []string{"secret=Th1nkPw55"},
						Content: []string{fmt.Sprintf(`{"items":[{"text":"The pool is exhausted; the runbook's DSN uses password=Kn0wPw33.","tool_call_id":%q,"doc_ids":[%q]}],"limitations":["token=L1m1tT0k44 was not checked"]}`,
							id, docs[0])},
					}
				},
				want: "password=[REDACTED]",
			},
		}
		for _, tc := range tests {
			t.Run(tc.intent, func(t *testing.T) {
				f := newChatFixture(t, prov, true)
				f.srv.Script(route(tc.intent))
				f.srv.Handle(tc.turn)
				out := f.chat(ChatRequest{Query: query})
				if out.Intent != tc.intent || out.Status != "SUCCESS" {
					t.Fatalf("output = %+v", out)
				}
				if !strings.Contains(out.Answer, tc.want) {
					t.Errorf("answer lacks %q:\n%s", tc.want, out.Answer)
				}
				all := append([]string{querySecret}, tc.planted...)
				shown, err := json.Marshal(out) // -o json prints this Output
				if err != nil {
					t.Fatal(err)
				}
				var sent []byte
				for _, b := range f.srv.Bodies() {
					sent = append(sent, b...)
				}
				r := f.run(out.RunID)
				if strings.ContainsAny(r.Query, "\x1b\x07\x00") || !strings.HasPrefix(r.Query, "api_key=[REDACTED] what does") {
					t.Errorf("stored query = %q", r.Query)
				}
				for _, ev := range f.events.Events() {
					if s, ok := ev.(harness.RunStarted); ok && s.Query != r.Query {
						t.Errorf("RunStarted query = %q, want the cleaned %q", s.Query, r.Query)
					}
				}
				if bytes.Contains(sent, []byte(`\u001b`)) || bytes.Contains(sent, []byte(`\u0000`)) {
					t.Errorf("control characters of the query were sent to the model")
				}
				sinks := []struct {
					name    string
					planted []string
					leaked  []string
				}{
					{"model request", []string{querySecret}, found(sent, []string{querySecret})},
					{"stdout", all, found(shown, all)},
					{"run store file", all, storeLeaks(t, f.store.Path(), all)},
				}
				for _, s := range sinks {
					reliability.Record(t, reliability.SectionSecrets, s.name+" ("+tc.intent+")", map[string]any{"planted": len(s.planted), "leaked": len(s.leaked)})
					if len(s.leaked) > 0 {
						t.Errorf("%s leaks %q", s.name, s.leaked)
					}
				}
			})
		}
	})
}
