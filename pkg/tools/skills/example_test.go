package skills_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// With no directories of its own, the catalog holds the built-in playbooks
// the agent's read_skill tool serves.
func ExampleLoad() {
	cat, err := skills.Load(nil)
	if err != nil {
		panic(err)
	}
	for _, name := range cat.Names() {
		p, _ := cat.Get(name)
		fmt.Println(name, p.Source)
	}
	// Output:
	// diagnose-jvm-memory-risk builtin
	// diagnose-mysql-connection-pool builtin
	// diagnose-payment-timeout builtin
	// diagnose-pod-restarts builtin
	// diagnose-redis-timeout builtin
	// diagnose-slow-response builtin
}
