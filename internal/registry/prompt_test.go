package registry

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/prompts"
)

// The diagnosis prompt, as a run assembles it with the registry's
// ToolGuide, names every tool a run can offer, in both languages: a source
// registered here without the line of its Guide fails, so the list cannot
// fall behind the registry again (it named four of the ten tools when
// query_kubernetes was added). The lines live in the folders: the prompt
// files name no evidence tool a Guide names.
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
	guide := ToolGuide()
	for lang, query := range map[string]string{"en": "q", "zh": "支付超时"} {
		prompt := agent.SystemPrompt(lang, query, nil, guide)
		if strings.Contains(prompt, "{{") {
			t.Errorf("the %s prompt keeps a placeholder", lang)
		}
		for _, name := range names {
			if !strings.Contains(prompt, "`"+name+"`") {
				t.Errorf("the %s diagnosis prompt does not name `%s`", lang, name)
			}
		}
	}
	for _, s := range Sources() {
		g, ok := s.(integration.Guided)
		if !ok {
			continue
		}
		if !strings.HasPrefix(g.Guide().EN, "`"+s.Tool()+"`") || !strings.HasPrefix(g.Guide().ZH, "`"+s.Tool()+"`") {
			t.Errorf("%s: its Guide lines do not start with `%s`: %+v", s.Name(), s.Tool(), g.Guide())
		}
		for lang, file := range map[string]string{"en": prompts.DiagnosisEN, "zh": prompts.DiagnosisZH} {
			if strings.Contains(file, "`"+s.Tool()+"`") {
				t.Errorf("the %s prompt file names `%s` beside its folder's Guide", lang, s.Tool())
			}
		}
	}
}
