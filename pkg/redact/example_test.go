package redact_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/redact"
)

// Text bound for a model, a terminal or a log has its secrets masked and
// keeps the key in front of each, so a reader sees what was there.
func ExampleString() {
	fmt.Println(redact.String("retrying with password=hunter2 against db-1"))
	// Output:
	// retrying with password=[REDACTED] against db-1
}
