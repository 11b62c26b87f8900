package usecase

import (
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// cliHints are superbiz's own pointers in the published texts (its
// commands, flags and configuration keys), by language: pkg/release names
// no program, the use case of this one does.
func cliHints() map[string]release.Hints {
	return map[string]release.Hints{
		"en": {
			Next: map[runrecord.StopReason]string{
				runrecord.StopToolBudget:    "Raise the tool budget with `--max-tool-calls` (budget.max_tool_calls).",
				runrecord.StopModelBudget:   "Raise the model budget with `--max-model-calls` (budget.max_model_calls).",
				runrecord.StopTokenBudget:   "Raise the token budget with `--max-tokens` (budget.max_tokens).",
				runrecord.StopByteBudget:    "Ask a narrower question, or raise budget.max_run_bytes in the configuration.",
				runrecord.StopDeadline:      "Raise the deadline with `--timeout` (budget.deadline), or use a faster model.",
				runrecord.StopInvalidOutput: "Try again, or use a model that follows JSON output well (`superbiz doctor` checks the model).",
			},
			CheckSources: "Check that the log sources and databases are configured and reachable: `superbiz doctor`.",
			InspectRun:   "Inspect what was checked: `superbiz runs show %s`.",
			Stopped: map[runrecord.StopReason]string{
				runrecord.StopModelBudget: " (budget.max_model_calls)",
				runrecord.StopTokenBudget: " (budget.max_tokens)",
				runrecord.StopDeadline:    " (budget.deadline)",
				runrecord.StopInternal:    " with `superbiz runs show`",
			},
			CheckModel:        ". Check it with `superbiz doctor`",
			RetryRouting:      ". Try again, or check the model with `superbiz doctor`",
			RetryRoutingModel: ". Check the model with `superbiz doctor` and try again",
			KnowledgeSetup:    " (set `knowledge.paths`)",
			CheckKnowledge:    ". Check `knowledge.paths` with `superbiz doctor`",
			AddRunbooks:       ", or add runbooks under `knowledge.paths` and run `superbiz kb index`",
		},
		"zh": {
			Next: map[runrecord.StopReason]string{
				runrecord.StopToolBudget:    "用 `--max-tool-calls`（budget.max_tool_calls）提高工具调用预算。",
				runrecord.StopModelBudget:   "用 `--max-model-calls`（budget.max_model_calls）提高模型调用预算。",
				runrecord.StopTokenBudget:   "用 `--max-tokens`（budget.max_tokens）提高 token 预算。",
				runrecord.StopByteBudget:    "缩小问题范围，或在配置中提高 budget.max_run_bytes。",
				runrecord.StopDeadline:      "用 `--timeout`（budget.deadline）延长截止时间，或换用更快的模型。",
				runrecord.StopInvalidOutput: "重试，或换用能稳定输出 JSON 的模型（`superbiz doctor` 会检查模型）。",
			},
			CheckSources: "检查日志源和数据库是否已配置且可访问：`superbiz doctor`。",
			InspectRun:   "查看已执行的检查：`superbiz runs show %s`。",
			Stopped: map[runrecord.StopReason]string{
				runrecord.StopModelBudget: "（budget.max_model_calls）",
				runrecord.StopTokenBudget: "（budget.max_tokens）",
				runrecord.StopDeadline:    "（budget.deadline）",
				runrecord.StopInternal:    "；可用 `superbiz runs show` 查看审计记录",
			},
			CheckModel:        "。请用 `superbiz doctor` 检查",
			RetryRouting:      "。请重试，或用 `superbiz doctor` 检查模型",
			RetryRoutingModel: "。请用 `superbiz doctor` 检查模型后重试",
			KnowledgeSetup:    "（请设置 `knowledge.paths`）",
			CheckKnowledge:    "。请用 `superbiz doctor` 检查 `knowledge.paths`",
			AddRunbooks:       "，或在 `knowledge.paths` 下添加手册并运行 `superbiz kb index`",
		},
	}
}
