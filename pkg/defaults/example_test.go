package defaults_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// A program that builds a run's budget itself starts from the values the
// superbiz binary uses when the configuration file says nothing.
func ExampleOf() {
	b := defaults.Of[runrecord.Budget]()
	fmt.Println("model calls:", b.MaxModelCalls)
	fmt.Println("tool calls:", b.MaxToolCalls)
	fmt.Println("deadline:", b.Deadline)
	// Output:
	// model calls: 8
	// tool calls: 6
	// deadline: 5m0s
}
