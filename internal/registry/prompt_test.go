package registry

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/prompts"
)

// The diagnosis prompt names every tool a run can offer, in both
// languages: a source registered here without its line in the prompt's
// tool list fails, so the list cannot fall behind the registry again (it
// named four of the ten tools when query_kubernetes was added).
func TestDiagnosisPromptNamesEveryTool(t *testing.T) {
	names := []string{harness.ReadSkillTool}
	for _, s := range Sources() {
		if s.Tool() != "" {
			names = append(names, s.Tool())
		}
	}
	if len(names) < 9 {
		t.Fatalf("the registry offers %d tools: %v", len(names), names)
	}
	for lang, prompt := range map[string]string{"en": prompts.DiagnosisEN, "zh": prompts.DiagnosisZH} {
		for _, name := range names {
			if !strings.Contains(prompt, "`"+name+"`") {
				t.Errorf("the %s diagnosis prompt does not name `%s`", lang, name)
			}
		}
	}
}
