package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
)

// chatModel answers like a model would: the router by keyword, the system
// chat with a greeting, the knowledge answer citing the lookup it was given;
// a server of provider prov.
func chatModel(t *testing.T, prov providertest.Provider) *providertest.Server {
	srv := providertest.Start(t, prov)
	srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
		user := req.Messages[len(req.Messages)-1].Content
		switch {
		case strings.Contains(string(req.Format), `"intent"`):
			var in struct {
				Query string `json:"query"`
			}
			_ = json.Unmarshal([]byte(user), &in)
			intent := "SYSTEM_CHAT"
			if strings.Contains(in.Query, "runbook") {
				intent = "KNOWLEDGE_QUERY"
			}
			return ollamatest.Turn{Content: []string{`{"intent":"` + intent + `"}`}}
		case strings.Contains(string(req.Format), `"items"`):
			var in struct {
				Observation struct {
					ToolCallID string `json:"tool_call_id"`
					Result     struct {
						Documents []struct {
							DocID string `json:"doc_id"`
						} `json:"documents"`
					} `json:"result"`
				} `json:"observation"`
			}
			if err := json.Unmarshal([]byte(user), &in); err != nil || len(in.Observation.Result.Documents) == 0 {
				return ollamatest.Turn{Content: []string{"no documents"}}
			}
			return ollamatest.Turn{Content: []string{fmt.Sprintf(`{"items":[{"text":"Find the slow command with SLOWLOG GET and stop KEYS scans.","tool_call_id":%q,"doc_ids":[%q]}],"limitations":["only the runbooks were read"]}`,
				in.Observation.ToolCallID, in.Observation.Result.Documents[0].DocID)}}
		}
		return ollamatest.Turn{Content: []string{"Hello! I diagnose production incidents from evidence."}}
	})
	return srv
}

func TestChatLineMode(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := chatModel(t, prov)
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		var out, errOut bytes.Buffer
		in := strings.NewReader("hello\n\nwhat does the runbook say about redis timeouts?\n")
		code := run(context.Background(), []string{"chat", "--demo", "-o", "json"}, in, &out, &errOut, func(k string) string { return env[k] })
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("want one JSON line per message, got %d:\n%s", len(lines), out.String())
		}
		var turns [2]struct {
			SessionID      string `json:"session_id"`
			Intent         string `json:"intent"`
			ReleaseOutcome string `json:"release_outcome"`
			Answer         string `json:"answer"`
		}
		for i, l := range lines {
			if err := json.Unmarshal([]byte(l), &turns[i]); err != nil {
				t.Fatalf("line %d: %v: %s", i, err, l)
			}
		}
		if turns[0].Intent != "SYSTEM_CHAT" || turns[1].Intent != "KNOWLEDGE_QUERY" || turns[0].SessionID != turns[1].SessionID {
			t.Fatalf("turns = %+v", turns)
		}
		if turns[1].ReleaseOutcome != "SUCCESS" || !strings.Contains(turns[1].Answer, "SLOWLOG") || strings.Contains(turns[1].Answer, "call_") {
			t.Fatalf("knowledge answer = %+v", turns[1])
		}
		// The second router request saw the first turn as context.
		var routed []string
		for _, r := range srv.ChatRequests() {
			if strings.Contains(string(r.Format), `"intent"`) {
				routed = append(routed, r.Messages[len(r.Messages)-1].Content)
			}
		}
		if len(routed) != 2 || !strings.Contains(routed[1], `"last_intent":"SYSTEM_CHAT"`) || !strings.Contains(routed[1], `"last_query":"hello"`) {
			t.Fatalf("router inputs = %q", routed)
		}
	})
}

func TestChatLineModeMarkdownAndUnreachable(t *testing.T) {
	env := diagnoseEnv(t)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"chat"}, strings.NewReader("hello\n"), &out, &errOut, func(k string) string { return env[k] })
	if code != ExitUnavailable || !strings.Contains(out.String(), "[UNROUTED] FAILED · ROUTING_UNAVAILABLE") || !strings.Contains(errOut.String(), "ollama serve") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}

// With --demo and no model, chat runs on the scripted router and answers:
// the demo query is diagnosed on the demo workspace with the real tools, any
// other message gets the scripted answer saying what the demo can do.
func TestChatDemoWithoutModel(t *testing.T) {
	env := diagnoseEnv(t)
	code, out, errOut := cliIn(t, env, "hello\n"+demo.Query+"\n", "chat", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"[SYSTEM_CHAT] SUCCESS", demo.ChatAnswer, "[DIAGNOSIS] SUCCESS", "HikariPool"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "model: "+demo.TranscriptNote+" (no model reachable") || !strings.Contains(errOut, "[tool] query_mysql") {
		t.Errorf("stderr lacks the scripted-model note or the real tool calls:\n%s", errOut)
	}
	// The same query a second time plays the transcript afresh.
	code, out, errOut = cliIn(t, env, demo.Query+"\n"+demo.Query+"\n", "chat", "--demo", "-o", "json")
	if code != ExitOK || strings.Count(out, `"release_outcome":"SUCCESS"`) != 2 {
		t.Fatalf("two demo diagnoses: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestChatSessionContinueExclusive: --session with --continue is a usage
// error (exit 2 and the usage line) before any store is opened.
func TestChatSessionContinueExclusive(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"chat", "--session", "s_x", "--continue"}, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	if code != ExitUsage || !strings.Contains(errOut.String(), "none of the others can be") || !strings.Contains(errOut.String(), "Usage: superbiz chat") {
		t.Fatalf("exit %d, stderr %q; want exit 2, the flag-group error and the usage line", code, errOut.String())
	}
}

// Line mode handles /help, /runs, /quit and unknown commands itself (no run
// is stored for them, nothing reaches the model); /alert without an
// Alertmanager is an error message and the session goes on; /quit ends it.
func TestChatLocalCommands(t *testing.T) {
	env := diagnoseEnv(t)
	in := "/help\n/runs\n/bogus\n/alert nosuch\nhello\n/runs\n/var/log is full?\n/quit\nnever sent\n"
	code, out, errOut := cliIn(t, env, in, "chat", "--demo")
	if code != ExitFailed { // the /alert message failed; everything else answered
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFailed, out, errOut)
	}
	for _, want := range []string{"`/runs` the runs of this session", "No runs in this session yet.", "Unknown command `/bogus`", "[SYSTEM_CHAT] SUCCESS · run r_", "SYSTEM_CHAT · SUCCESS · hello"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "superbiz: /alert: no Alertmanager configured") {
		t.Errorf("stderr lacks the /alert error:\n%s", errOut)
	}
	// Two messages became runs: "hello" and the path question; "never sent" did not.
	_, list, _ := cli(t, env, "runs", "-o", "json")
	runs := jsonArray(t, list)
	if len(runs) != 2 || runs[0]["query"] != "/var/log is full?" || runs[1]["query"] != "hello" {
		t.Errorf("stored runs = %v, want the path question and hello", runs)
	}
}
