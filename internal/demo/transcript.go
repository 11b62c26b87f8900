package demo

import (
	"encoding/json"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TranscriptNote is what the output says when the scripted transcript plays.
const TranscriptNote = "scripted demo transcript"

// Provider is the provider a run answered by the scripted transcript names
// (stored with the run, said in `diagnose -o json`), instead of the
// configured one, which it never reached.
const Provider = "demo"

// Pace is how long each scripted round waits when a person watches the demo
// on a terminal: the seven rounds take about 3 s, long enough to see the live
// budget panel move (the unpaced run takes under 0.1 s).
const Pace = 400 * time.Millisecond

// TimelineCallID is the transcript's build_timeline call: the first round
// reads the playbook and builds the incident timeline of the last two hours,
// whose panel the live screen shows.
const TimelineCallID = "call_demo_timeline"

// Transcript is the hand-written sequence of model turns the demo plays when
// no model is reachable, for Query only. The turns make the real tools run on
// the demo workspace (the playbook, the logs, the slow-query table and the
// runbooks); the draft cites those calls and the SemanticGuard's verdict
// closes it. Nothing here is a tool result: if the workspace did not hold
// the evidence, the guards would refuse the draft and the run would fall back.
func Transcript() []model.Response {
	calls := func(tcs ...model.ToolCall) model.Response {
		return model.Response{
			Message: model.Message{Role: model.RoleAssistant, ToolCalls: tcs},
			Usage:   model.Usage{PromptTokens: 2400, CompletionTokens: 60}, DoneReason: "stop", Model: TranscriptNote,
		}
	}
	call := func(id, tool, args string) model.Response {
		return calls(model.ToolCall{ID: id, Name: tool, Arguments: json.RawMessage(args)})
	}
	text := func(s string, prompt, completion int) model.Response {
		return model.Response{Message: model.Message{Role: model.RoleAssistant, Content: s}, Usage: model.Usage{PromptTokens: prompt, CompletionTokens: completion}, DoneReason: "stop", Model: TranscriptNote}
	}
	return []model.Response{
		calls(
			model.ToolCall{ID: "call_demo0001", Name: "read_skill", Arguments: json.RawMessage(`{"name":"diagnose-payment-timeout"}`)},
			model.ToolCall{ID: TimelineCallID, Name: "build_timeline", Arguments: json.RawMessage(`{"input":{"since":"` + tools.FormatDuration(TimelineSince) + `"}}`)},
		),
		call("call_demo0002", "query_logs", `{"previous_observation":{"tool_call_id":"`+TimelineCallID+`","evaluation":"GAINED"},"input":{"service":"payment-service","level":"ERROR","contains":"connection is not available","since":"1h","limit":5}}`),
		call("call_demo0003", "query_logs", `{"previous_observation":{"tool_call_id":"call_demo0002","evaluation":"GAINED"},"input":{"service":"payment-service","level":"WARN","contains":"active=50","since":"1h","limit":5}}`),
		call("call_demo0004", "query_mysql", `{"previous_observation":{"tool_call_id":"call_demo0003","evaluation":"GAINED"},"input":{"database":"orders","sql":"SELECT ts, duration_ms, rows_examined, sql_text FROM slow_queries WHERE ts >= '2026-11-28 14:00:00' ORDER BY duration_ms DESC LIMIT 5","max_rows":5}}`),
		call("call_demo0005", "lookup_knowledge", `{"previous_observation":{"tool_call_id":"call_demo0004","evaluation":"GAINED"},"input":{"query":"HikariPool connection is not available payment timeout","top_k":3}}`),
		text(`{"conclusion":{"summary":"Checkout payments time out because payment-service's MySQL connection pool (HikariPool-1, 50 connections) is exhausted from 14:00.","root_cause":"A slow full-scan query on payments by order_id (no index, about 1.8 M rows examined, 3-8 s each) holds pool connections, so payment requests wait 3000 ms for a connection and fail; order-service then times out and the gateway returns 504.","confidence":"HIGH"},"analysis":[{"type":"FINDING","claim":"The timeline of the last two hours shows payment-service deploying version 2.14.0 (it ran 2.13.4) at 13:58:21, then an error burst and three error patterns never seen in the hour before, from 14:00.","scope":"every configured source, 13:00-15:00","tool_call_ids":["`+TimelineCallID+`"]},{"type":"FINDING","claim":"payment-service logged repeated 'HikariPool-1 - Connection is not available, request timed out after 3000ms' errors since 14:00.","scope":"payment-service ERROR logs, 14:00-15:00","tool_call_ids":["call_demo0002"]},{"type":"FINDING","claim":"The pool reported total=50, active=50, idle=0 with dozens of waiting threads.","scope":"payment-service WARN logs, 14:00-15:00","tool_call_ids":["call_demo0003"]},{"type":"FINDING","claim":"The slowest queries since 14:00 are full scans of payments filtered by order_id, taking several seconds each.","scope":"orders.slow_queries since 14:00","tool_call_ids":["call_demo0004"]},{"type":"FINDING","claim":"The team runbook says pool exhaustion with 3000 ms connection timeouts is usually caused by slow queries holding connections.","scope":"runbooks","tool_call_ids":["call_demo0005"]}],"action_plan":[{"priority":"P0","step":"Disable the feature that looks up payments by order_id before authorizing, or roll back payment-service 2.14.0.","risk":"MEDIUM"},{"priority":"P1","step":"Add an index on payments(order_id) after review, then re-enable the check.","risk":"MEDIUM"},{"priority":"P2","step":"Alert on HikariPool waiting > 0 for more than one minute.","risk":"LOW"}],"recommendations":["Review query plans of new lookups before enabling them on hot paths.","Keep the pool size unchanged until the slow query is fixed: a larger pool moves the load to MySQL."],"limitations":{"scope":"payment-service logs and the slow-query table since 14:00, and the team runbooks.","missing_info":["MySQL server metrics (threads running, lock waits) for the same window"]}}`, 5200, 640),
		text(`{"verdict":"SUPPORTED","reasons":["Each finding restates what its cited observation shows."]}`, 1800, 30),
	}
}
