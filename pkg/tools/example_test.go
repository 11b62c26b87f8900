package tools_test

import (
	"context"
	"fmt"

	"github.com/superbiz/superbiz/pkg/tools"
)

// A call stopped by its caller is CANCELED, one that ran out of time is
// TIMEOUT: every adapter classifies a context's end the same way.
func ExampleContextCode() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println(tools.ContextCode(ctx.Err()))
	fmt.Println(tools.ContextCode(context.DeadlineExceeded))
	fmt.Printf("%q\n", tools.ContextCode(fmt.Errorf("connection refused")))
	// Output:
	// CANCELED
	// TIMEOUT
	// ""
}
