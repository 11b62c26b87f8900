package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// Queries of the demo day's incidents (internal/demo/README.md, clock fixed at
// 2026-11-28T15:00:00Z).
const (
	queryPayment = "checkout payments time out since 14:00, many 504s"
	queryPool    = "payment-service says HikariPool connection is not available"
	queryRedis   = "logins failed this morning around 09:15 with 503s"
	querySlow    = "order history was very slow around 11:00"
	queryJVM     = "payment-service restarted this morning, checkouts failed around 06:46"
	queryNothing = "inventory-service crashes and refunds are stuck"
)

// The evidence calls of the scenarios; each really finds (or, where named,
// really does not find) evidence in the demo workspace.
const (
	inPaymentErrors = `{"service":"payment-service","level":"ERROR","contains":"connection is not available","since":"1h","limit":5}`
	inOrderTimeouts = `{"service":"order-service","level":"ERROR","contains":"payment call timed out","since":"1h","limit":5}`
	inSlowSince14   = `{"database":"orders","sql":"SELECT ts, duration_ms, rows_examined, sql_text FROM slow_queries WHERE ts >= '2026-11-28 14:00:00' ORDER BY duration_ms DESC LIMIT 5","max_rows":5}`
	inPaymentKB     = `{"query":"payment timeout checkout 504 connection pool","top_k":3}`
	inPoolStats     = `{"service":"payment-service","level":"WARN","contains":"active=50","since":"1h","limit":5}`
	inPoolSlowSQL   = `{"database":"orders","sql":"SELECT ts, duration_ms, rows_examined FROM slow_queries WHERE sql_text LIKE '%FROM payments WHERE order_id%' AND ts >= '2026-11-28 14:00:00' ORDER BY duration_ms DESC LIMIT 5","max_rows":5}`
	inPoolKB        = `{"query":"HikariPool connection pool exhausted waiting threads","top_k":3}`
	inRedisErrors   = `{"service":"user-service","level":"ERROR","contains":"redis timed out","start":"2026-11-28T09:00:00Z","end":"2026-11-28T10:00:00Z","limit":5}`
	inRedisKeys     = `{"service":"user-service","level":"WARN","contains":"KEYS session","start":"2026-11-28T09:00:00Z","end":"2026-11-28T10:00:00Z","limit":5}`
	inRedisOrderNeg = `{"service":"order-service","level":"ERROR","contains":"redis","start":"2026-11-28T09:00:00Z","end":"2026-11-28T10:00:00Z","limit":5}`
	inRedisKB       = `{"query":"redis timeout KEYS command blocks","top_k":3}`
	inSlowSLO       = `{"service":"gateway","level":"WARN","contains":"p99 latency above SLO","start":"2026-11-28T11:00:00Z","end":"2026-11-28T11:30:00Z","limit":5}`
	inSlowRepo      = `{"service":"order-service","level":"WARN","contains":"slow query findByUserId","start":"2026-11-28T11:00:00Z","end":"2026-11-28T11:30:00Z","limit":5}`
	inSlowScans     = `{"database":"orders","sql":"SELECT ts, duration_ms, rows_examined, sql_text FROM slow_queries WHERE ts >= '2026-11-28 11:00:00' AND ts < '2026-11-28 11:30:00' ORDER BY rows_examined DESC LIMIT 5","max_rows":5}`
	inHeap          = `{"service":"payment-service","level":"WARN","contains":"heap usage above 85%","start":"2026-11-28T06:00:00Z","end":"2026-11-28T07:00:00Z","limit":5}`
	inOOM           = `{"service":"payment-service","level":"ERROR","contains":"OutOfMemoryError","start":"2026-11-28T06:00:00Z","end":"2026-11-28T07:00:00Z","limit":5}`
	inOOMKilled     = `{"service":"payment-service","level":"WARN","contains":"OOMKilled","start":"2026-11-28T06:00:00Z","end":"2026-11-28T07:00:00Z","limit":5}`
	inJVMKB         = `{"query":"heap OutOfMemoryError Full GC memory leak","top_k":3}`
	inNoInventory   = `{"service":"inventory-service","level":"ERROR","since":"1h","limit":5}`
	inNoRefunds     = `{"database":"orders","sql":"SELECT id, status FROM orders WHERE status = 'REFUNDED' LIMIT 5","max_rows":5}`
	// a week before the demo day: the source holds nothing then
	inEmptyWindow = `{"service":"order-service","level":"ERROR","contains":"redis","start":"2026-11-21T09:00:00Z","end":"2026-11-21T10:00:00Z","limit":5}`
)

// paymentTurns are the payment-timeout case's tool calls (four checks).
func paymentTurns() []ollamatest.Turn {
	return []ollamatest.Turn{
		skill("call_e2e0001", "diagnose-payment-timeout"),
		ev("call_e2e0002", "query_logs", "", inPaymentErrors),
		ev("call_e2e0003", "query_logs", "call_e2e0002", inOrderTimeouts),
		ev("call_e2e0004", "query_mysql", "call_e2e0003", inSlowSince14),
		ev("call_e2e0005", "lookup_knowledge", "call_e2e0004", inPaymentKB),
	}
}

// redisTurns are the redis-timeout case's tool calls, its scoped negative
// (nothing is pending after it) being call id with input negative.
func redisTurns(id, negative string) []ollamatest.Turn {
	return []ollamatest.Turn{
		skill("call_e2e0001", "diagnose-redis-timeout"),
		ev("call_e2e0002", "query_logs", "", inRedisErrors),
		ev("call_e2e0003", "query_logs", "call_e2e0002", inRedisKeys),
		ev(id, "query_logs", "call_e2e0003", negative),
		ev("call_e2e0005", "lookup_knowledge", "", inRedisKB),
	}
}

// Check statuses as -o json reports them.
const (
	found = "EVIDENCE_FOUND"
	none  = "NO_EVIDENCE"
	// emptyWindow follows the status of a check whose window held no data.
	emptyWindow = " (empty window)"
)

// scenario is one diagnose run of the binary and what it must produce.
type scenario struct {
	name  string
	query string
	flags []string
	turns func(t *testing.T) []ollamatest.Turn

	exit       int
	status     string
	outcome    string
	stopReason string
	// checks are "tool STATUS" in order.
	checks []string
	// findings are the tools each published finding must name in its
	// sources, in order; nil expects result null.
	findings [][]string
	// answerHas are texts the answer must contain; answerLacks must not
	// appear (an unpublished conclusion).
	answerHas, answerLacks []string
	// observed maps a Tool Call ID to a text its observation, as sent back
	// to the model, must contain: the evidence really is in the demo data.
	observed map[string]string
	// guard says whether the last chat request is the SemanticGuard's.
	guard bool
	// requests checks what the model server received, beyond the common checks.
	requests func(t *testing.T, reqs []ollamatest.ChatRequest)
}

func scenarios() []scenario {
	return []scenario{
		{
			name: "payment timeout", query: queryPayment,
			turns: func(t *testing.T) []ollamatest.Turn {
				return append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))
			},
			exit: 0, status: "SUCCESS", outcome: "SUCCESS", stopReason: "COMPLETED",
			checks:    []string{"query_logs " + found, "query_logs " + found, "query_mysql " + found, "lookup_knowledge " + found},
			findings:  [][]string{{"query_logs"}, {"query_logs"}, {"query_mysql"}, {"lookup_knowledge"}},
			answerHas: []string{"## Conclusion", "cannot get a MySQL connection", "payment-timeout.md"},
			observed: map[string]string{
				"call_e2e0001": "Diagnose payment timeouts",
				"call_e2e0002": "Connection is not available, request timed out after 3000ms",
				"call_e2e0003": "payment call to payment-service timed out after 3000 ms",
				"call_e2e0004": "FROM payments WHERE order_id",
				"call_e2e0005": "payment-timeout.md",
			},
			guard: true,
		},
		{
			name: "mysql connection pool", query: queryPool,
			turns: func(t *testing.T) []ollamatest.Turn {
				return []ollamatest.Turn{
					skill("call_e2e0001", "diagnose-mysql-connection-pool"),
					ev("call_e2e0002", "query_logs", "", inPoolStats),
					ev("call_e2e0003", "query_mysql", "call_e2e0002", inPoolSlowSQL),
					ev("call_e2e0004", "lookup_knowledge", "call_e2e0003", inPoolKB),
					text(draftText(t, "mysql-connection-pool")), verdict("SUPPORTED"),
				}
			},
			exit: 0, status: "SUCCESS", outcome: "SUCCESS", stopReason: "COMPLETED",
			checks:    []string{"query_logs " + found, "query_mysql " + found, "lookup_knowledge " + found},
			findings:  [][]string{{"query_logs"}, {"query_mysql"}, {"lookup_knowledge"}},
			answerHas: []string{"all 50 connections are active", "mysql-connection-pool.md"},
			observed: map[string]string{
				"call_e2e0002": "active=50",
				"call_e2e0003": "rows_examined",
				"call_e2e0004": "mysql-connection-pool.md",
			},
			guard: true,
		},
		{
			name: "redis timeout", query: queryRedis,
			turns: func(t *testing.T) []ollamatest.Turn {
				return append(redisTurns("call_e2e0004", inRedisOrderNeg), text(draftText(t, "redis-timeout")), verdict("SUPPORTED"))
			},
			exit: 0, status: "SUCCESS", outcome: "SUCCESS", stopReason: "COMPLETED",
			checks:    []string{"query_logs " + found, "query_logs " + found, "query_logs " + none, "lookup_knowledge " + found},
			findings:  [][]string{{"query_logs"}, {"query_logs"}, {"query_logs"}, {"lookup_knowledge"}},
			answerHas: []string{"KEYS session:*", "NEGATIVE_OBSERVATION", "redis-timeout.md"},
			observed: map[string]string{
				"call_e2e0002": "redis command timed out after 3000 ms",
				"call_e2e0003": "KEYS session:*",
				// the released negative's window held data
				"call_e2e0004": `"coverage":"data"`,
				"call_e2e0005": "redis-timeout.md",
			},
			guard: true,
		},
		{
			name: "slow response", query: querySlow,
			turns: func(t *testing.T) []ollamatest.Turn {
				return []ollamatest.Turn{
					skill("call_e2e0001", "diagnose-slow-response"),
					ev("call_e2e0002", "query_logs", "", inSlowSLO),
					ev("call_e2e0003", "query_logs", "call_e2e0002", inSlowRepo),
					ev("call_e2e0004", "query_mysql", "call_e2e0003", inSlowScans),
					text(draftText(t, "slow-response")), verdict("SUPPORTED"),
				}
			},
			exit: 0, status: "SUCCESS", outcome: "SUCCESS", stopReason: "COMPLETED",
			checks:    []string{"query_logs " + found, "query_logs " + found, "query_mysql " + found},
			findings:  [][]string{{"query_logs"}, {"query_logs"}, {"query_mysql"}},
			answerHas: []string{"orders.user_id has no index"},
			observed: map[string]string{
				"call_e2e0002": "p99 latency above SLO",
				"call_e2e0003": "findByUserId",
				"call_e2e0004": "FROM orders WHERE user_id = ",
			},
			guard: true,
		},
		{
			name: "jvm memory risk", query: queryJVM,
			turns: func(t *testing.T) []ollamatest.Turn {
				return []ollamatest.Turn{
					skill("call_e2e0001", "diagnose-jvm-memory-risk"),
					ev("call_e2e0002", "query_logs", "", inHeap),
					ev("call_e2e0003", "query_logs", "call_e2e0002", inOOM),
					ev("call_e2e0004", "query_logs", "call_e2e0003", inOOMKilled),
					ev("call_e2e0005", "lookup_knowledge", "call_e2e0004", inJVMKB),
					text(draftText(t, "jvm-memory-risk")), verdict("SUPPORTED"),
				}
			},
			exit: 0, status: "SUCCESS", outcome: "SUCCESS", stopReason: "COMPLETED",
			checks:    []string{"query_logs " + found, "query_logs " + found, "query_logs " + found, "lookup_knowledge " + found},
			findings:  [][]string{{"query_logs"}, {"query_logs"}, {"query_logs"}, {"lookup_knowledge"}},
			answerHas: []string{"OOMKilled", "jvm-memory.md"},
			observed: map[string]string{
				"call_e2e0002": "heap usage above 85%",
				"call_e2e0003": "java.lang.OutOfMemoryError: Java heap space",
				"call_e2e0004": "OOMKilled",
				"call_e2e0005": "jvm-memory.md",
			},
			guard: true,
		},
		{
			name: "no evidence", query: queryNothing,
			turns: func(t *testing.T) []ollamatest.Turn {
				return []ollamatest.Turn{
					ev("call_e2e0001", "query_logs", "", inNoInventory),
					ev("call_e2e0002", "query_mysql", "", inNoRefunds),
					text(draftText(t, "no-evidence")),
				}
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "NO_CONCLUSION",
			checks: []string{"query_logs " + none, "query_mysql " + none},
			answerHas: []string{
				"`query_logs` — NO_EVIDENCE", "`query_mysql` — NO_EVIDENCE",
				"inventory-service ERROR logs in the last hour and the orders table",
				"inventory-service logs are not in any configured source",
				"the refund service's database is not configured",
			},
		},
		{
			// The draft's only negative cites a window the source holds no
			// entry in: missing data, not a negative; the guard rejects it and
			// the fallback lists the source's range as missing information.
			name: "evidence guard: negative over an empty window", query: queryRedis,
			turns: func(t *testing.T) []ollamatest.Turn {
				d := strings.ReplaceAll(draftText(t, "redis-timeout"), `"call_e2e0004"`, `"call_e2e0006"`)
				return append(redisTurns("call_e2e0006", inEmptyWindow), text(d))
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "GUARD_REJECTED",
			checks: []string{"query_logs " + found, "query_logs " + found, "query_logs " + none + emptyWindow, "lookup_knowledge " + found},
			answerHas: []string{
				"Data in the asked window: log source demo covers 2026-11-28",
				"nothing in the asked window 2026-11-21T09:00:00.000Z – 2026-11-21T10:00:00.000Z",
			},
			answerLacks: []string{"order-service logged no Redis errors"},
			observed:    map[string]string{"call_e2e0006": `"coverage":"none"`},
		},
		{
			name: "evidence guard: unknown tool call id", query: queryPayment,
			turns: func(t *testing.T) []ollamatest.Turn {
				d := strings.ReplaceAll(draftText(t, "payment-timeout"), `"call_e2e0005"`, `"call_e2e0099"`)
				return append(paymentTurns(), text(d))
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "GUARD_REJECTED",
			answerLacks: []string{"cannot get a MySQL connection", "Slow full scans"},
			checks:      []string{"query_logs " + found, "query_logs " + found, "query_mysql " + found, "lookup_knowledge " + found},
		},
		{
			name: "evidence guard: NO_EVIDENCE cited as a FINDING", query: queryNothing,
			turns: func(t *testing.T) []ollamatest.Turn {
				return []ollamatest.Turn{
					ev("call_e2e0001", "query_logs", "", inNoInventory),
					text(`{"conclusion":{"summary":"inventory-service crashed.","root_cause":"inventory-service ran out of memory.","confidence":"LOW"},` +
						`"analysis":[{"type":"FINDING","claim":"inventory-service logged crashes.","scope":"inventory-service ERROR logs","tool_call_ids":["call_e2e0001"]}],` +
						`"action_plan":[],"recommendations":[],"limitations":{"scope":"inventory-service logs","missing_info":[]}}`),
				}
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "GUARD_REJECTED",
			answerLacks: []string{"inventory-service crashed", "ran out of memory"},
			checks:      []string{"query_logs " + none},
		},
		{
			name: "semantic guard: UNSUPPORTED", query: queryPayment,
			turns: func(t *testing.T) []ollamatest.Turn {
				return append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("UNSUPPORTED"))
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "GUARD_REJECTED",
			answerLacks: []string{"cannot get a MySQL connection", "Slow full scans"},
			checks:      []string{"query_logs " + found, "query_logs " + found, "query_mysql " + found, "lookup_knowledge " + found},
			guard:       true,
		},
		{
			name: "fenced draft after evidence", query: queryPayment,
			turns: func(t *testing.T) []ollamatest.Turn {
				return append(paymentTurns(), text("```json\n"+draftText(t, "payment-timeout")+"\n```"))
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "INVALID_OUTPUT",
			answerLacks: []string{"cannot get a MySQL connection", "Slow full scans"},
			checks:      []string{"query_logs " + found, "query_logs " + found, "query_mysql " + found, "lookup_knowledge " + found},
		},
		{
			name: "fenced draft without evidence", query: queryPayment,
			turns: func(t *testing.T) []ollamatest.Turn {
				return []ollamatest.Turn{text("```json\n" + draftText(t, "payment-timeout") + "\n```")}
			},
			exit: 1, status: "FAILED", outcome: "FAILED", stopReason: "INVALID_OUTPUT",
		},
		{
			name: "tool budget ends after two checks", query: queryPayment, flags: []string{"--max-tool-calls", "2"},
			turns: func(t *testing.T) []ollamatest.Turn {
				p := paymentTurns()
				// The third evidence call gets STOP_REQUIRED; the final round
				// has no tools and the model answers without a conclusion.
				return append(p[:4], text(`{"conclusion":null,"analysis":[{"type":"FINDING","claim":"payment-service cannot get pool connections.","scope":"payment-service ERROR logs, 14:00-15:00","tool_call_ids":["call_e2e0002"]}],"action_plan":[],"recommendations":[],"limitations":{"scope":"two log checks","missing_info":["the slow-query table was not checked"]}}`))
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "TOOL_BUDGET_EXHAUSTED",
			checks:    []string{"query_logs " + found, "query_logs " + found},
			answerHas: []string{"the slow-query table was not checked"},
			requests: func(t *testing.T, reqs []ollamatest.ChatRequest) {
				last := reqs[len(reqs)-1]
				if len(last.Tools) != 0 || len(last.Format) == 0 {
					t.Errorf("the round after STOP_REQUIRED offered %d tools, format %q; want no tools and the draft schema", len(last.Tools), last.Format)
				}
				stop := toolResult(reqs, "call_e2e0004")
				if !strings.Contains(stop, `"STOP_REQUIRED"`) {
					t.Errorf("the third evidence call got %q, want STOP_REQUIRED", stop)
				}
			},
		},
		{
			name: "tool budget: the model ignores the stop", query: queryPayment, flags: []string{"--max-tool-calls", "2"},
			turns: func(t *testing.T) []ollamatest.Turn {
				p := paymentTurns()
				return append(p[:4], ev("call_e2e0006", "query_logs", "", inPoolStats))
			},
			exit: 3, status: "SUCCESS", outcome: "FALLBACK", stopReason: "TOOL_BUDGET_EXHAUSTED",
			checks: []string{"query_logs " + found, "query_logs " + found},
			requests: func(t *testing.T, reqs []ollamatest.ChatRequest) {
				if last := reqs[len(reqs)-1]; len(last.Tools) != 0 {
					t.Errorf("the final round offered %d tools, want none", len(last.Tools))
				}
			},
		},
	}
}

// toolResult is the content of the tool message answering call id, as the
// model was sent it in a later request ("" when never sent).
func toolResult(reqs []ollamatest.ChatRequest, id string) string {
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				return m.Content
			}
		}
	}
	return ""
}

func TestDiagnoseScenarios(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		for _, sc := range scenarios() {
			t.Run(p.name+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				srv := p.start(t)
				turns := sc.turns(t)
				srv.Script(turns...)
				e := srv.env(t)
				args := append([]string{"--demo", "diagnose", "-o", "json"}, sc.flags...)
				r := e.run(t, append(args, sc.query)...)
				if r.code != sc.exit {
					t.Fatalf("exit %d, want %d\n%s", r.code, sc.exit, r)
				}
				out := decodeOutput(t, r)
				checkOutput(t, sc, out, r)
				reqs := srv.ChatRequests()
				if srv.Pending() != 0 || len(reqs) != len(turns) {
					t.Errorf("the model got %d requests for %d scripted turns (%d left)", len(reqs), len(turns), srv.Pending())
				}
				checkRequests(t, sc, reqs)
				if sc.requests != nil && len(reqs) > 0 {
					sc.requests(t, reqs)
				}
				for id, want := range sc.observed {
					if got := toolResult(reqs, id); !strings.Contains(got, want) {
						t.Errorf("observation of %s lacks %q:\n%s", id, want, got)
					}
				}
				assertReplay(t, e, out.RunID)
				if sc.outcome == "SUCCESS" {
					// The demo data is fixed, so today's sources give the same run.
					assertReplay(t, e, out.RunID, "--live-tools")
				}
				assertKeyAbsent(t, e, out.RunID, r)
			})
		}
	}
}

// checkOutput asserts the -o json object of a finished scenario.
func checkOutput(t *testing.T, sc scenario, out diagnoseOutput, r result) {
	t.Helper()
	if out.Intent != "DIAGNOSIS" || out.Status != sc.status || out.ReleaseOutcome != sc.outcome || out.StopReason != sc.stopReason {
		t.Errorf("intent %s, status %s, release_outcome %s, stop_reason %s; want DIAGNOSIS, %s, %s, %s\n%s",
			out.Intent, out.Status, out.ReleaseOutcome, out.StopReason, sc.status, sc.outcome, sc.stopReason, r)
	}
	if !strings.HasPrefix(out.RunID, "r_") || !strings.HasPrefix(out.SessionID, "s_") {
		t.Errorf("run_id %q, session_id %q", out.RunID, out.SessionID)
	}
	var checks []string
	for _, c := range out.Checks {
		check := c.Tool + " " + c.EvidenceStatus
		if c.EmptyWindow != "" {
			check += emptyWindow
		}
		checks = append(checks, check)
		if c.Summary == "" {
			t.Errorf("check %s has no summary", c.Tool)
		}
	}
	if !slices.Equal(checks, sc.checks) {
		t.Errorf("checks %q, want %q", checks, sc.checks)
	}
	if out.Usage.ToolCalls != len(sc.checks) {
		t.Errorf("usage.tool_calls %d, want %d", out.Usage.ToolCalls, len(sc.checks))
	}
	if (out.Error != nil) != (sc.status == "FAILED") {
		t.Errorf("error %+v for status %s", out.Error, out.Status)
	}
	for _, want := range sc.answerHas {
		if !strings.Contains(out.Answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, out.Answer)
		}
	}
	for _, bad := range sc.answerLacks {
		if strings.Contains(out.Answer, bad) {
			t.Errorf("answer shows the unreleased %q:\n%s", bad, out.Answer)
		}
	}
	// Published content never shows Tool Call IDs.
	for what, s := range map[string]string{"answer": out.Answer, "result": string(out.Result)} {
		if strings.Contains(s, "call_") {
			t.Errorf("%s shows a Tool Call ID:\n%s", what, s)
		}
	}
	if sc.findings == nil {
		if string(out.Result) != "null" {
			t.Errorf("result %s, want null", out.Result)
		}
		return
	}
	var p published
	if err := json.Unmarshal(out.Result, &p); err != nil {
		t.Fatalf("result is not a PublishedResult: %v\n%s", err, out.Result)
	}
	if p.Query != sc.query || p.Conclusion == nil || p.Conclusion.Summary == "" {
		t.Errorf("result query %q, conclusion %+v", p.Query, p.Conclusion)
	}
	if len(p.Findings) != len(sc.findings) {
		t.Fatalf("%d findings, want %d: %s", len(p.Findings), len(sc.findings), out.Result)
	}
	for i, f := range p.Findings {
		var tools []string
		for _, s := range f.Sources {
			tool, _, _ := strings.Cut(s, ":")
			if !slices.Contains(tools, tool) {
				tools = append(tools, tool)
			}
		}
		if !slices.Equal(tools, sc.findings[i]) {
			t.Errorf("finding %d (%q) sources %q, want tools %q", i+1, f.Claim, f.Sources, sc.findings[i])
		}
	}
}

// checkRequests asserts what every diagnosis run sends: the system prompt and
// the single user message {"query", "previous_turn": null} first, tools in
// the evidence rounds, and a no-tool, schema-constrained guard call last.
func checkRequests(t *testing.T, sc scenario, reqs []ollamatest.ChatRequest) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the model received no chat request")
	}
	first := reqs[0]
	if len(first.Messages) != 2 || first.Messages[0].Role != "system" || first.Messages[1].Role != "user" {
		t.Fatalf("first request messages %+v, want system then user", roles(first))
	}
	// The list of evidence tools comes from the integrations' folders
	// (registry.ToolGuide): every one is listed, whatever is configured.
	sys := first.Messages[0].Content
	for _, line := range []string{"\n  - `lookup_knowledge`", "\n  - `query_mysql`, `query_postgres`", "\n  - `query_redis`", "\n  - `query_kubernetes`"} {
		if !strings.Contains(sys, line) || strings.Contains(sys, "{{") {
			t.Errorf("the system prompt lacks %q or keeps a placeholder", line)
		}
	}
	in := userInput(t, first)
	if in.Query != sc.query || string(in.PreviousTurn) != "null" {
		t.Errorf("user message %s, want query %q and previous_turn null", first.Messages[1].Content, sc.query)
	}
	if names := toolNames(first); !slices.Equal(names, []string{"build_timeline", "lookup_knowledge", "query_logs", "query_mysql", "read_skill"}) {
		t.Errorf("first request offers tools %q", names)
	}
	if sc.guard {
		g := reqs[len(reqs)-1]
		if len(g.Tools) != 0 || len(g.Format) == 0 || !strings.Contains(string(g.Format), "verdict") {
			t.Errorf("guard request: %d tools, format %s; want no tools and the verdict schema", len(g.Tools), g.Format)
		}
	}
}

func roles(r ollamatest.ChatRequest) []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role)
	}
	return out
}

func toolNames(r ollamatest.ChatRequest) []string {
	var out []string
	for _, d := range r.Tools {
		out = append(out, d.Function.Name)
	}
	slices.Sort(out)
	return out
}

// agentInput is the run's single user message (docs/SPEC.md#agent-input).
type agentInput struct {
	Query        string          `json:"query"`
	PreviousTurn json.RawMessage `json:"previous_turn"`
}

func userInput(t *testing.T, r ollamatest.ChatRequest) agentInput {
	t.Helper()
	var users []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) != 1 {
		t.Fatalf("request has %d user messages, want exactly 1", len(users))
	}
	dec := json.NewDecoder(strings.NewReader(users[0]))
	dec.DisallowUnknownFields()
	var in agentInput
	if err := dec.Decode(&in); err != nil {
		t.Fatalf("user message is not {query, previous_turn}: %v\n%s", err, users[0])
	}
	return in
}
