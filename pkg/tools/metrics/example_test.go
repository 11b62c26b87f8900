package metrics_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
)

// Canonical checks a model's input before anything is sent to the server:
// the source is resolved, and an input the source's bounds refuse never runs.
func ExampleTool_Canonical() {
	src := defaults.Of[metrics.Source]()
	src.Name, src.URL = "prod", "http://prometheus.internal:9090"
	tool, err := metrics.New([]metrics.Source{src})
	if err != nil {
		panic(err)
	}
	c, err := tool.Canonical([]byte(`{"query":"sum(rate(http_requests_total{code=~\"5..\"}[5m]))","since":"2h"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(c.Input))
	_, err = tool.Canonical([]byte(`{"query":"up","since":"48h"}`))
	fmt.Println(err)
	// Output:
	// {"source":"prod","query":"sum(rate(http_requests_total{code=~\"5..\"}[5m]))","since":"2h"}
	// invalid input: since "48h" is out of range: use 1m to 24h
}
