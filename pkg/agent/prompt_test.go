package agent

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/prompts"
)

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
	cat := tools.PlaybookList{{Name: "diagnose-redis-timeout", Description: "Redis commands time out", Body: "SECRET BODY STEPS"}}
	for lang, base := range map[string]string{"en": prompts.DiagnosisEN, "zh": prompts.DiagnosisZH} {
		p := SystemPrompt(lang, "q", cat, map[string]string{lang: "  - `query_disk`: " + lang + " disk line"})
		if !strings.Contains(p, "）：\n  - `query_disk`: "+lang+" disk line\n") && !strings.Contains(p, "input):\n  - `query_disk`: "+lang+" disk line\n") {
			t.Errorf("%s: the tool guide is not the prompt's list of evidence tools", lang)
		}
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

// Without a line for the prompt's language, the list of evidence tools
// names the tools the run offers (an embedding program's own), never
// another program's.
func TestToolGuideFallsBackToTheOfferedTools(t *testing.T) {
	ts, err := harness.NewToolset([]tools.Adapter{&stubTool{name: "query_disk"}}, tools.PlaybookList{{Name: "p", Description: "d"}})
	if err != nil {
		t.Fatal(err)
	}
	g := toolGuide(Config{Tools: ts, ToolGuide: map[string]string{"zh": "  - `query_disk`：磁盘"}})
	if g["en"] != "  - `query_disk`" || g["zh"] != "  - `query_disk`：磁盘" {
		t.Errorf("toolGuide = %q", g)
	}
	if p := SystemPrompt("en", "q", nil, g); !strings.Contains(p, ":\n  - `query_disk`\n- `build_timeline`") {
		t.Errorf("the English prompt lists no offered tool:\n%.900s", p)
	}
}
