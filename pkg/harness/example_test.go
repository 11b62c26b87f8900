package harness_test

import (
	"context"
	"fmt"

	"github.com/superbiz/superbiz/pkg/harness"
)

// The run context owns the budget: a model call past it is refused with the
// stop reason the run then ends with, whoever asked for the call.
func ExampleRunContext_BeforeModelCall() {
	b := harness.DefaultBudget()
	b.MaxModelCalls = 1
	rc, err := harness.NewRunContext(context.Background(), harness.RunOptions{SessionID: "s1", RunID: "r1", Budget: b})
	if err != nil {
		panic(err)
	}
	defer rc.Release()
	seq, err := rc.BeforeModelCall(0)
	fmt.Println("call", seq, err)
	_, err = rc.BeforeModelCall(0)
	fmt.Println(harness.ReasonOf(err))
	fmt.Println(rc.ModelCallsLeft(0))
	// Output:
	// call 1 <nil>
	// MODEL_BUDGET_EXHAUSTED
	// 0
}
