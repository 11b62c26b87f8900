package cmd

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/reliability"
)

// A query on stdin longer than what is read is refused before any run is
// stored or model called, and the message says what is true: more than
// 1 MiB was on stdin, the limit is limits.query. A query read whole but
// over limits.query is rejected with its real size.
func TestStdinQuerySizeIsReportedTruly(t *testing.T) {
	srv := ollamatest.New(t)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	tests := []struct {
		name  string
		stdin string
		want  []string
		not   []string
	}{
		{"10 MB", strings.Repeat("x", 10<<20), []string{"more than 1048576 bytes (1 MiB)", "the limit is 4096 bytes (limits.query)", "before any model call"}, []string{"has 1048576 bytes"}},
		{"one byte over 1 MiB", strings.Repeat("x", 1<<20+1), []string{"more than 1048576 bytes"}, nil},
		{"5000 bytes", strings.Repeat("y", 5000), []string{"the query has 5000 bytes, the limit is 4096 (limits.query)"}, []string{"1 MiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cliIn(t, env, tt.stdin, "diagnose", "-")
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d\nstdout %.300s\nstderr %s", code, ExitUsage, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(errOut, n) {
					t.Errorf("stderr says %q:\n%s", n, errOut)
				}
			}
		})
	}
	if srv.ChatCount() != 0 {
		t.Fatalf("%d model calls for rejected input, want 0", srv.ChatCount())
	}
	reliability.Record(t, reliability.SectionMutation, "stdin query over 1 MiB reported as such, exit 2 before any model call", map[string]any{"test": t.Name()})
}

// --continue on a store without any session says on stderr that a new
// session starts; with a session to continue it says nothing of the kind.
func TestContinueOnEmptyStoreSaysSo(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Turn{Content: []string{noConclusion}}, ollamatest.Turn{Content: []string{noConclusion}})
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, _, errOut := cli(t, env, "diagnose", "--continue", "checkout is slow")
	if code != ExitFallback {
		t.Fatalf("exit %d, want %d: %s", code, ExitFallback, errOut)
	}
	if !strings.Contains(errOut, "--continue: the run store "+env["SUPERBIZ_DB"]+" holds no session yet; starting a new one") {
		t.Fatalf("stderr does not say a new session starts:\n%s", errOut)
	}
	code, _, errOut = cli(t, env, "diagnose", "--continue", "still slow?")
	if code != ExitFallback || strings.Contains(errOut, "holds no session") {
		t.Fatalf("second run: exit %d, stderr:\n%s", code, errOut)
	}
}

// A host with an IPv6 address cut short is a configuration error (exit 2)
// naming the problem, never a guessed http://[::1]:80.
func TestHostWithUnbalancedBracketRefused(t *testing.T) {
	for _, host := range []string{"http://[::1", "[::1", "http://::1]:11434"} {
		env := diagnoseEnv(t)
		code, _, errOut := cli(t, env, "--host", host, "diagnose", "x")
		if code != ExitUsage || !strings.Contains(errOut, "needs both brackets") {
			t.Errorf("--host %q: exit %d, stderr:\n%s", host, code, errOut)
		}
		env["OLLAMA_HOST"] = host
		code, _, errOut = cli(t, env, "diagnose", "x")
		if code != ExitUsage || !strings.Contains(errOut, "needs both brackets") {
			t.Errorf("OLLAMA_HOST=%q: exit %d, stderr:\n%s", host, code, errOut)
		}
	}
}

// noConclusion is a valid DiagnosisDraft without a conclusion: FALLBACK.
const noConclusion = `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing checked","missing_info":["logs"]}}`

// Every model server fault ends a diagnosis as MODEL_UNAVAILABLE, exit 4,
// never as an internal error; the message names the host and (when there
// was one) the HTTP status, and the hint says what to check.
func TestModelFaultsThroughTheCommand(t *testing.T) {
	partial := []string{"partial"}
	tests := []struct {
		name   string
		turn   ollamatest.Turn
		kind   string
		status string
		hint   string
	}{
		{"http 500 with body", ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body}, "SERVER", "HTTP 500", "`ollama ps`"},
		{"http 500 empty", ollamatest.Turn{Fault: ollamatest.FaultHTTP500Empty}, "SERVER", "HTTP 500", "`ollama ps`"},
		{"http 401", ollamatest.Turn{Fault: ollamatest.FaultUnauthorized}, "BAD_REQUEST", "HTTP 401", "check the key"},
		{"http 400", ollamatest.Turn{Fault: ollamatest.FaultBadRequest}, "BAD_REQUEST", "HTTP 400", "superbiz doctor"},
		{"model not found", ollamatest.Turn{Fault: ollamatest.FaultModelNotFound}, "MODEL_NOT_FOUND", "HTTP 404", "ollama pull qwen3:8b"},
		{"tools not supported", ollamatest.Turn{Fault: ollamatest.FaultToolsNotSupported}, "TOOLS_NOT_SUPPORTED", "HTTP 400", "native tool calling"},
		{"cut stream", ollamatest.Turn{Content: partial, Fault: ollamatest.FaultCutMidStream}, "PROTOCOL", "stream cut", "no proxy cuts"},
		{"error line mid-stream", ollamatest.Turn{Content: partial, Fault: ollamatest.FaultErrorLineMidStream}, "SERVER", "GGML_ASSERT", "`ollama ps`"},
		{"malformed line", ollamatest.Turn{Content: partial, Fault: ollamatest.FaultMalformedLine}, "PROTOCOL", "malformed line", "Ollama API"},
		{"no done chunk", ollamatest.Turn{Content: partial, Fault: ollamatest.FaultNoDone}, "PROTOCOL", "without done", "Ollama API"},
		{"proxy html 502", ollamatest.Turn{Fault: ollamatest.FaultProxyHTML}, "SERVER", "HTTP 502 with an HTML page (\"502 Bad Gateway\")", "proxy"},
		{"html page 200", ollamatest.Turn{Fault: ollamatest.FaultHTMLPage}, "PROTOCOL", "HTTP 200 with an HTML page", "points at Ollama itself"},
		{"string arguments not an object", ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_1", Name: "query_logs", Args: "since=1h", ArgsAsString: true}}}, "PROTOCOL", "not a JSON object", "Ollama API"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t)
			srv.Script(tt.turn)
			env := diagnoseEnv(t)
			env["OLLAMA_HOST"] = srv.URL()
			code, out, errOut := cli(t, env, "--demo", "diagnose", "-o", "json", "why is checkout slow")
			if code != ExitUnavailable {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, ExitUnavailable, out, errOut)
			}
			got := jsonObject(t, out)
			errObj, _ := got["error"].(map[string]any)
			if got["stop_reason"] != "MODEL_UNAVAILABLE" || got["release_outcome"] != "FAILED" || errObj["code"] != "MODEL_UNAVAILABLE" {
				t.Fatalf("outcome %v / %v / %v", got["stop_reason"], got["release_outcome"], errObj)
			}
			msg, _ := errObj["message"].(string)
			for _, w := range []string{"(" + tt.kind + ")", srv.URL(), tt.status} {
				if !strings.Contains(msg, w) || !strings.Contains(errOut, w) {
					t.Errorf("message or stderr lacks %q:\nmessage %s\nstderr %s", w, msg, errOut)
				}
			}
			if !strings.Contains(errOut, "hint: ") || !strings.Contains(errOut, tt.hint) {
				t.Errorf("stderr lacks the hint %q:\n%s", tt.hint, errOut)
			}
			if strings.Contains(strings.ToLower(errOut+out), "internal error") || strings.Contains(errOut+out, "<html") {
				t.Errorf("output says internal error or repeats HTML:\n%s\n%s", out, errOut)
			}
			if srv.ChatCount() != 1 {
				t.Errorf("%d model calls, want 1 (no retry)", srv.ChatCount())
			}
			reliability.Record(t, reliability.SectionModel, tt.name, map[string]any{"outcome": "MODEL_UNAVAILABLE (" + tt.kind + ")", "exit": code})
		})
	}
}

// Tool arguments sent as a JSON string holding an object are accepted, as
// real clients accept them: the tool runs and the run ends on its merits.
func TestStringArgumentsRunTheTool(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_s1", Name: "query_logs", ArgsAsString: true,
			Args: `{"input":{"service":"payment-service","level":"ERROR","contains":"connection is not available","since":"1h","limit":5}}`}}},
		ollamatest.Turn{Content: []string{noConclusion}},
	)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, out, errOut := cli(t, env, "--demo", "diagnose", "-o", "json", "why is checkout slow")
	if code != ExitFallback {
		t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, ExitFallback, out, errOut)
	}
	got := jsonObject(t, out)
	checks, _ := got["checks"].([]any)
	if len(checks) != 1 || checks[0].(map[string]any)["evidence_status"] != "EVIDENCE_FOUND" {
		t.Fatalf("checks %v, want one EVIDENCE_FOUND query_logs", got["checks"])
	}
	reliability.Record(t, reliability.SectionModel, "tool arguments as a JSON string holding an object", map[string]any{"outcome": "accepted (tool ran, FALLBACK)", "exit": code})
}

// In chat line mode a model fault (twice, so routing gives up) is exit 4
// with the hint, not exit 1.
func TestChatModelFaultExit(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		srv.Script(ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body}, ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body})
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		code, out, errOut := cliIn(t, env, "hello\n", "chat", "--no-tui")
		// Each provider's hint names where to look: Ollama's `ollama ps`, the other server's log.
		hint := map[providertest.Provider]string{providertest.Ollama: "`ollama ps`", providertest.OpenAI: "check its log"}[prov]
		if code != ExitUnavailable || !strings.Contains(errOut, hint) || !strings.Contains(out, "HTTP 500") {
			t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, ExitUnavailable, out, errOut)
		}
		reliability.Record(t, reliability.SectionModel, "chat: HTTP 500 twice while routing ("+string(prov)+")", map[string]any{"outcome": "ROUTING_UNAVAILABLE (SERVER)", "exit": code})
	})
}

// A model that spends its budget on calls the boundary refuses ends the
// same way whether it calls a tool that does not exist or a real tool with
// arguments of the wrong types: FAILED, exit 1, naming the budget — a
// refused call is no progress to fall back on.
func TestRefusedCallsExhaustingABudgetEndAlike(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		unknown := ollamatest.ToolCall{Name: "query_prometheus", Args: `{"input":{"query":"up"}}`}
		wrongTypes := ollamatest.ToolCall{Name: "query_logs", Args: `{"input":{"service":42,"since":true,"limit":"many"}}`}
		tests := []struct {
			name   string
			call   ollamatest.ToolCall
			budget []string
			reason string
		}{
			{"unknown tool, model budget", unknown, []string{"--max-model-calls", "4", "--max-tool-calls", "20"}, "MODEL_BUDGET_EXHAUSTED"},
			{"wrong argument types, model budget", wrongTypes, []string{"--max-model-calls", "4", "--max-tool-calls", "20"}, "MODEL_BUDGET_EXHAUSTED"},
			{"wrong argument types, tool budget", wrongTypes, []string{"--max-model-calls", "8", "--max-tool-calls", "2"}, "TOOL_BUDGET_EXHAUSTED"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				srv := providertest.Start(t, prov)
				n := 0
				srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
					n++
					c := tt.call
					c.ID = "call_r" + strings.Repeat("x", n)
					return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{c}}
				})
				env := diagnoseEnv(t)
				maps.Copy(env, srv.Env())
				args := append([]string{"--demo", "diagnose", "-o", "json"}, tt.budget...)
				code, out, errOut := cli(t, env, append(args, "why is checkout slow")...)
				got := jsonObject(t, out)
				if code != ExitFailed || got["release_outcome"] != "FAILED" || got["stop_reason"] != tt.reason {
					t.Fatalf("exit %d, outcome %v, stop %v; want exit 1, FAILED, %s\nstderr %s", code, got["release_outcome"], got["stop_reason"], tt.reason, errOut)
				}
				if !strings.Contains(errOut, "before any evidence check gave a usable result") {
					t.Errorf("stderr does not say why:\n%s", errOut)
				}
				reliability.Record(t, reliability.SectionMutation, "refused calls exhausting a budget end alike ("+string(prov)+"): "+tt.name, map[string]any{"test": t.Name()})
			})
		}
	})
}

// The exit code of a cancelled run names what cancelled it.
func TestCancelExit(t *testing.T) {
	for _, tc := range []struct {
		cause error
		code  int
	}{
		{&signalCause{sig: syscall.SIGINT}, 130},
		{&signalCause{sig: syscall.SIGTERM}, 143},
		{&signalCause{sig: syscall.SIGHUP}, 129},
		{nil, ExitCancelled},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(tc.cause)
		if got := cancelExit(ctx); got != tc.code {
			t.Errorf("cause %v: exit %d, want %d", tc.cause, got, tc.code)
		}
	}
}

// The exit code of each way a diagnosis ends, through the whole command:
// 2 for input rejected before any model call (no model call made), 3 for
// FALLBACK, 1 for FAILED, 4 for a model that cannot answer.
func TestExitCodesThroughTheCommand(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		tests := []struct {
			name   string
			turns  []ollamatest.Turn
			args   []string
			code   int
			calls  int
			stderr string
		}{
			{"query over limits.query", nil, []string{strings.Repeat("q", 4097)}, ExitUsage, 0, "input rejected before any model call: the query has 4097 bytes, the limit is 4096 (limits.query)"},
			{"blank query", nil, []string{"   "}, ExitUsage, 0, "the query is empty"},
			{"--session and --continue", nil, []string{"--session", "s_x", "--continue", "q"}, ExitUsage, 0, "none of the others can be"},
			{"unknown session", nil, []string{"--session", "s_nope", "q"}, ExitUsage, 0, `unknown session "s_nope"`},
			{"fallback", []ollamatest.Turn{{Content: []string{noConclusion}}}, []string{"checkout is slow"}, ExitFallback, 1, ""},
			{"failed: invalid final answer", []ollamatest.Turn{{Content: []string{"I think it is the database."}}}, []string{"checkout is slow"}, ExitFailed, 1, "INVALID_OUTPUT"},
			{"model failing", []ollamatest.Turn{{Fault: ollamatest.FaultHTTP500Body}}, []string{"checkout is slow"}, ExitUnavailable, 1, "HTTP 500"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				srv := providertest.Start(t, prov)
				srv.Script(tt.turns...)
				env := diagnoseEnv(t)
				maps.Copy(env, srv.Env())
				code, out, errOut := cli(t, env, append([]string{"diagnose"}, tt.args...)...)
				if code != tt.code {
					t.Fatalf("exit %d, want %d\nstdout %.400s\nstderr %s", code, tt.code, out, errOut)
				}
				if srv.ChatCount() != tt.calls {
					t.Errorf("%d model calls, want %d", srv.ChatCount(), tt.calls)
				}
				if !strings.Contains(errOut, tt.stderr) {
					t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
				}
				reliability.Record(t, reliability.SectionMutation, "exit "+strconv.Itoa(tt.code)+" through the command ("+string(prov)+"): "+tt.name, map[string]any{"test": t.Name()})
			})
		}
	})
}

// In chat line mode a message line over 1 MiB is refused as such (exit 2).
func TestChatLineTooLong(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		code, _, errOut := cliIn(t, env, strings.Repeat("x", 2<<20)+"\n", "chat", "--no-tui")
		if code != ExitUsage || !strings.Contains(errOut, "a message on stdin has more than 1048576 bytes (1 MiB)") || srv.ChatCount() != 0 {
			t.Fatalf("exit %d, %d model calls, stderr:\n%s", code, srv.ChatCount(), errOut)
		}
	})
}
