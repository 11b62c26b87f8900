package kubernetes_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// A query_kubernetes tool over one cluster: the model asks for one of four
// read-only views; a view outside them is refused before any request.
func Example() {
	t, err := kubernetes.New([]kubernetes.Source{{Name: "prod", Namespaces: []string{"shop"}, Timeout: 10 * time.Second}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := t.Canonical(json.RawMessage(`{"view":"pods","namespace":"shop"}`))
	fmt.Println(t.Definition().Name, err == nil && len(c.Input) > 0)
	_, err = t.Canonical(json.RawMessage(`{"view":"secrets"}`))
	fmt.Println(err != nil)
	fmt.Println(kubernetes.Views)
	// Output:
	// query_kubernetes true
	// true
	// [pods events rollouts nodes]
}
