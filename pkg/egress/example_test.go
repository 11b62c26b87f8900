package egress_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/egress"
)

// Every byte that leaves the process is an egress value: made by the policy
// from outside text (masked), or from a constant of the program's own.
func Example() {
	line := egress.Mask(`retry failed: password=HunterTwoAlpaca9 user=svc`)
	fmt.Println(line)
	own := egress.Sprintf("%d calls left", 3)
	fmt.Println(egress.Concat(own, egress.Const("; "), line))
	// Output:
	// retry failed: password=[REDACTED] user=svc
	// 3 calls left; retry failed: password=[REDACTED] user=svc
}
