package usecase

import (
	"context"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/pkg/model"
)

// A diagnosis without a conclusion and without a check points at
// superbiz's own commands, in the run's language: pkg/release names no
// program, so these words come from cliHints.
func TestFallbackNamesSuperbizCommands(t *testing.T) {
	const draft = `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing checked","missing_info":["logs"]}}`
	for lang, want := range map[string][]string{
		"en": {"Check that the log sources and databases are configured and reachable: `superbiz doctor`.", "Inspect what was checked: `superbiz runs show r_"},
		"zh": {"检查日志源和数据库是否已配置且可访问：`superbiz doctor`。", "查看已执行的检查：`superbiz runs show r_"},
	} {
		t.Run(lang, func(t *testing.T) {
			d, _, _ := demoDeps(t, replay.New([]model.Response{{Message: model.Message{Role: model.RoleAssistant, Content: draft}, DoneReason: "stop"}}))
			d.Language = lang
			out, err := d.Diagnose(context.Background(), DiagnoseRequest{Query: "why are orders failing?"})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				if !strings.Contains(out.Answer, w) {
					t.Errorf("%s/%s answer lacks %q:\n%s", out.ReleaseOutcome, out.StopReason, w, out.Answer)
				}
			}
		})
	}
}

// Every language carries the same hints: a pointer missing in one would
// silently drop a line there.
func TestCLIHintsCoverEveryLanguage(t *testing.T) {
	h := cliHints()
	en, zh := h["en"], h["zh"]
	if len(en.Next) != len(zh.Next) || len(en.Stopped) != len(zh.Stopped) {
		t.Fatalf("next %d/%d, stopped %d/%d", len(en.Next), len(zh.Next), len(en.Stopped), len(zh.Stopped))
	}
	for r := range en.Next {
		if zh.Next[r] == "" {
			t.Errorf("zh lacks the next step for %s", r)
		}
	}
	for r := range en.Stopped {
		if zh.Stopped[r] == "" {
			t.Errorf("zh lacks the stop hint for %s", r)
		}
	}
}
