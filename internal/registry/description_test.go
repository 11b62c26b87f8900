package registry

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TestToolDescriptionsWithinBudget: every tool the registered sources
// declare (configured by their examples) and read_skill describe
// themselves to the model in at most tools.MaxToolDescription characters
// (issue 36 §4: query_logs' had grown to 3,235).
func TestToolDescriptionsWithinBudget(t *testing.T) {
	cfg, _, _, err := load(t, Example(), nil)
	if err != nil {
		t.Fatalf("Load of the sources' examples: %v", err)
	}
	declared, err := Declared(context.Background(), cfg, integration.Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Declared: %v", err)
	}
	withTool := 0
	for _, s := range Sources() {
		if s.Tool() != "" {
			withTool++
		}
	}
	if len(declared) < withTool {
		t.Fatalf("declared %d tools for %d sources with a tool", len(declared), withTool)
	}
	for _, d := range declared {
		if n := utf8.RuneCountInString(d.Description); n > tools.MaxToolDescription {
			t.Errorf("%s: description of %d characters; at most %d (the rest belongs in docs/SPEC.md)", d.Name, n, tools.MaxToolDescription)
		}
	}
}
