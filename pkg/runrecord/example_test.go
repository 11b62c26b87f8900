package runrecord_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Every release outcome maps to the run status the store and `-o json` show.
func ExampleOutcome_Status() {
	for _, o := range runrecord.Outcomes() {
		fmt.Println(o, "->", o.Status())
	}
	// Output:
	// SUCCESS -> SUCCESS
	// FALLBACK -> SUCCESS
	// FAILED -> FAILED
	// CANCELLED -> CANCELLED
}
