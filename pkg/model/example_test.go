package model_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/model"
)

// A server that sends tool calls without IDs (older Ollama) gets call_<n>
// IDs that continue the conversation's numbering; a server's own ID is kept.
func ExampleAssignToolCallIDs() {
	history := []model.Message{{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "call_1", Name: "query_logs"}}}}
	calls := []model.ToolCall{{Name: "query_metrics"}, {ID: "call_x7", Name: "query_mysql"}}
	model.AssignToolCallIDs(calls, history)
	for _, c := range calls {
		fmt.Println(c.ID, c.Name)
	}
	// Output:
	// call_2 query_metrics
	// call_x7 query_mysql
}
