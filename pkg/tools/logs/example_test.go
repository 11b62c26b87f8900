package logs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// One call over a source's files: the matching entries are counted and
// grouped by message template, so a burst reads as one counted pattern.
func ExampleTool_Execute() {
	dir, err := os.MkdirTemp("", "logs-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	lines := `{"ts":"2026-12-04T14:01:00Z","level":"ERROR","service":"payment","msg":"connection is not available, request timed out after 3000ms"}
{"ts":"2026-12-04T14:02:00Z","level":"INFO","service":"payment","msg":"charge accepted"}
{"ts":"2026-12-04T14:03:00Z","level":"ERROR","service":"payment","msg":"connection is not available, request timed out after 3000ms"}
`
	if err := os.WriteFile(filepath.Join(dir, "payment.log"), []byte(lines), 0o600); err != nil {
		panic(err)
	}
	src := defaults.Of[logs.Source]()
	src.Name, src.Paths, src.Location = "app", []string{filepath.Join(dir, "*.log")}, time.UTC
	tool, err := logs.New([]logs.Source{src})
	if err != nil {
		panic(err)
	}
	c, err := tool.Canonical([]byte(`{"level":"ERROR","since":"1h"}`))
	if err != nil {
		panic(err)
	}
	out := tool.Execute(context.Background(), tools.Call{Tool: logs.ToolName, Input: c.Input, Now: time.Date(2026, 12, 4, 14, 30, 0, 0, time.UTC), MaxBytes: 4096})
	res := out.Result.(logs.Result)
	fmt.Println(out.Status, "matched", res.Matched)
	for _, p := range res.Patterns {
		fmt.Println(p.Count, p.Template)
	}
	// Output:
	// EVIDENCE_FOUND matched 2
	// 2 connection is not available, request timed out after <dur>
}
