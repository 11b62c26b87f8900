package agent

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/prompts"
)

type catalog []tools.Playbook

func (c catalog) List() []tools.Playbook { return c }
func (c catalog) Get(name string) (tools.Playbook, bool) {
	for _, p := range c {
		if p.Name == name {
			return p, true
		}
	}
	return tools.Playbook{}, false
}

func TestPromptLanguage(t *testing.T) {
	for _, tc := range []struct{ setting, query, want string }{
		{"auto", "payment timeouts on order-service", "en"},
		{"auto", "order-service 支付超时 504", "zh"},
		{"zh", "payment timeouts", "zh"},
		{"en", "支付超时", "en"},
		{"", "redis 连接超时", "zh"},
	} {
		if got := PromptLanguage(tc.setting, tc.query); got != tc.want {
			t.Errorf("PromptLanguage(%q, %q) = %q, want %q", tc.setting, tc.query, got, tc.want)
		}
	}
}

// The system prompt is the language's rules plus the compact catalog (names
// and descriptions only, never bodies) and the draft schema.
func TestSystemPrompt(t *testing.T) {
	cat := catalog{{Name: "diagnose-redis-timeout", Description: "Redis commands time out", Body: "SECRET BODY STEPS"}}
	for lang, base := range map[string]string{"en": prompts.DiagnosisEN, "zh": prompts.DiagnosisZH} {
		p := SystemPrompt(lang, "q", cat)
		if !strings.HasPrefix(p, base[:40]) {
			t.Errorf("%s: prompt does not start with its language's rules", lang)
		}
		if !strings.Contains(p, "- diagnose-redis-timeout: Redis commands time out") || strings.Contains(p, "SECRET BODY") {
			t.Errorf("%s: catalog wrong in prompt", lang)
		}
		if !strings.Contains(p, string(DraftSchema())) || strings.Contains(p, "{{") {
			t.Errorf("%s: schema or a placeholder left in prompt", lang)
		}
	}
	// The rules the issue names are in both prompts.
	for _, rule := range []string{"NEGATIVE_OBSERVATION", "previous_turn", "STOP_REQUIRED", "DUPLICATE_CALL", "conclusion"} {
		if !strings.Contains(prompts.DiagnosisEN, rule) || !strings.Contains(prompts.DiagnosisZH, rule) {
			t.Errorf("rule %q missing from a prompt", rule)
		}
	}
	// A question naming a time or an alert starts from the timeline.
	if !strings.Contains(prompts.DiagnosisEN, "When the question names a time or an alert, call `build_timeline` first") ||
		!strings.Contains(prompts.DiagnosisZH, "当问题提到某个时间或某个告警时，先调用 `build_timeline`") {
		t.Error("a prompt does not ask for build_timeline first when the question names a time or an alert")
	}
}
