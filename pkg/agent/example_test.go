package agent_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/agent"
)

// The model's final answer is parsed strictly: a draft that is not exactly
// the DiagnosisDraft shape is an invalid output, never guessed at.
func ExampleParseDraft() {
	d, err := agent.ParseDraft(`{"conclusion":{"summary":"orders-db-1's disk is full.","root_cause":"The data disk is at 100%.","confidence":"MEDIUM"},`+
		`"analysis":[{"type":"FINDING","claim":"The data disk is 100% used.","scope":"orders-db-1","tool_call_ids":["call_1"]}],`+
		`"action_plan":[{"priority":"P0","step":"Free space on orders-db-1.","risk":"LOW"}],"recommendations":[],`+
		`"limitations":{"scope":"one host.","missing_info":[]}}`, agent.DefaultLimits().Draft)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Conclusion.Summary, d.Analysis[0].ToolCallIDs)
	_, err = agent.ParseDraft(`{"conclusion":null,"Analysis":[]}`, agent.DefaultLimits().Draft)
	fmt.Println(err != nil)
	// Output:
	// orders-db-1's disk is full. [call_1]
	// true
}
