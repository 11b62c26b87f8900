package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
)

// scriptedServer speaks OpenAI's Chat Completions wire (whole answers) and
// plays the model's side of one diagnosis, one answer per request: a tool
// call asking the disk usage of host, the draft citing it as showing
// orders-db-1 full, and the semantic guard's verdict. It stands in for a
// real server when none is given (CI).
func scriptedServer(host string) *httptest.Server {
	call := map[string]any{"id": "call_disk0001", "type": "function", "function": map[string]any{
		"name": "disk_usage", "arguments": `{"input":{"host":` + strconv.Quote(host) + `}}`,
	}}
	answers := []map[string]any{
		{"role": "assistant", "content": nil, "tool_calls": []any{call}},
		{"role": "assistant", "content": `{"conclusion":{"summary":"orders-db-1's data disk is full, so writes to orders-db fail.","root_cause":"The data disk of orders-db-1 is at 100% use.","confidence":"MEDIUM"},` +
			`"analysis":[{"type":"FINDING","claim":"orders-db-1's data disk is 100% used.","scope":"disk usage of orders-db-1 at 09:30","tool_call_ids":["call_disk0001"]}],` +
			`"action_plan":[{"priority":"P0","step":"Free space on orders-db-1 (old binary logs first) or grow its data disk.","risk":"MEDIUM"}],` +
			`"recommendations":["Alert when a database disk passes 85%."],` +
			`"limitations":{"scope":"the disk usage of orders-db-1 only.","missing_info":["the database's own error log"]}}`},
		{"role": "assistant", "content": `{"verdict":"SUPPORTED","reasons":["The finding restates the cited observation."]}`},
	}
	var next atomic.Int32
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(next.Add(1)) - 1
		if r.URL.Path != "/v1/chat/completions" || i >= len(answers) {
			http.Error(w, `{"error":{"message":"no scripted answer left","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		finish := "stop"
		if i == 0 {
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-" + strconv.Itoa(i), "object": "chat.completion", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "message": answers[i], "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": 900, "completion_tokens": 80, "total_tokens": 980},
		})
	}))
}
