// Package agent is the single diagnosis ReAct agent: one agent per run, one
// invocation, one loop of model rounds and tool calls through the harness,
// ending in a strictly parsed DiagnosisDraft, a controlled stop, or a
// failure. It has no planner, no second agent and no retry.
package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/prompts"
)

// Limits are the UTF-8 byte limits of the configuration's [limits] table,
// declared once (keys, defaults, bounds) in pkg/runrecord.
type Limits = runrecord.Limits

// DefaultLimits are the declared default limits.
func DefaultLimits() Limits { return defaults.Of[Limits]() }

// PreviousTurn is the bounded, frozen context of the session's last safe
// diagnosis; it helps read a follow-up and is never evidence.
type PreviousTurn struct {
	Query         string         `json:"query"`
	Conclusion    *Conclusion    `json:"conclusion"`
	Scope         string         `json:"scope"`
	Limitations   Limitations    `json:"limitations"`
	KnowledgeRefs []tools.DocRef `json:"knowledge_refs"` // the runbook sections it relied on
}

// Input is everything the agent receives: the query and an optional PreviousTurn.
type Input struct {
	Query        string
	PreviousTurn *PreviousTurn
}

// Config wires one agent run.
type Config struct {
	Model  model.ChatModel
	Tools  *harness.Toolset
	Limits Limits
	// Language is auto, zh or en: the system prompt's language.
	Language string
	// ToolGuide is the system prompt's list of the evidence tools by prompt
	// language ("en", "zh"): one "  - `tool`: what it reads" line each,
	// written by whoever assembled the tools (superbiz's integrations give
	// theirs). Without the language's entry the list names the offered
	// tools only.
	ToolGuide map[string]string
	// Reserved is how many model calls must stay free after the agent (the
	// SemanticGuard's call).
	Reserved int
}

// Result is the agent's execution result: a strictly valid Draft, not yet
// released, or none, and the StopReason saying how the run ended
// (docs/SPEC.md#release-outcomes). Release tells the ends apart by these
// two alone.
type Result struct {
	Draft      *Draft
	DraftJSON  string
	StopReason runrecord.StopReason
	// Snapshot is set for a controlled stop, and for an invalid draft that
	// came after READY checks; never invented otherwise.
	Snapshot    *harness.ProgressSnapshot
	Invocations []harness.Invocation
	Err         error
}

// Run executes the agent once for rc. It never retries the agent or a round.
func Run(rc *harness.RunContext, cfg Config, in Input) Result {
	userMsg, err := buildInput(cfg.Limits, in)
	if err != nil {
		rc.Terminate(runrecord.StopInputRejected)
		return Result{StopReason: runrecord.StopInputRejected, Err: err}
	}
	if err := rc.ReserveBytes(len(userMsg)); err != nil {
		rc.Terminate(runrecord.StopInputRejected)
		return Result{StopReason: runrecord.StopInputRejected, Err: fmt.Errorf("input of %d bytes exceeds the run byte budget: %w", len(userMsg), err)}
	}
	var playbooks tools.Playbooks
	if cfg.Tools != nil {
		playbooks = cfg.Tools.Playbooks()
	}
	boundary := harness.NewBoundary(rc, cfg.Tools, cfg.Limits.Observation)
	a := &loop{rc: rc, cfg: cfg, boundary: boundary}
	a.msgs = []model.Message{
		{Role: model.RoleSystem, Content: SystemPrompt(cfg.Language, in.Query, playbooks, toolGuide(cfg))},
		{Role: model.RoleUser, Content: userMsg},
	}
	res := a.run()
	res.Invocations = boundary.Invocations()
	return res
}

// buildInput serialises exactly {"query", "previous_turn"}, checking every
// size before any model call; nothing is truncated or rewritten.
func buildInput(l Limits, in Input) (string, error) {
	if strings.TrimSpace(in.Query) == "" {
		return "", errors.New("the query is empty")
	}
	if len(in.Query) > l.Query {
		return "", fmt.Errorf("the query has %d bytes, the limit is %d (limits.query)", len(in.Query), l.Query)
	}
	prev := json.RawMessage("null")
	if in.PreviousTurn != nil {
		b, err := json.Marshal(in.PreviousTurn)
		if err != nil {
			return "", fmt.Errorf("encode previous turn: %w", err)
		}
		if len(b) > l.PreviousTurn {
			return "", fmt.Errorf("the previous turn has %d bytes, the limit is %d (limits.previous_turn)", len(b), l.PreviousTurn)
		}
		prev = b
	}
	msg, err := json.Marshal(struct {
		Query        string          `json:"query"`
		PreviousTurn json.RawMessage `json:"previous_turn"`
	}{in.Query, prev})
	if err != nil {
		return "", fmt.Errorf("encode input: %w", err)
	}
	if len(msg) > l.Input {
		return "", fmt.Errorf("the input has %d bytes, the limit is %d (limits.input)", len(msg), l.Input)
	}
	return string(msg), nil
}

// finalNote is appended before a final no-tool round, so the model knows the
// tools are closed.
const finalNote = "FINAL ROUND: tools are closed. Reply now with exactly one DiagnosisDraft JSON object and nothing else."

type loop struct {
	rc       *harness.RunContext
	cfg      Config
	boundary *harness.Boundary
	msgs     []model.Message
}

func (a *loop) run() Result {
	tools := a.cfg.Tools.Definitions()
	schema := DraftSchema()
	for {
		stop := a.boundary.StopRequired()
		final := stop != "" || a.rc.ModelCallsLeft(a.cfg.Reserved) <= 1
		req := model.Request{Messages: a.msgs}
		purpose := runrecord.PurposeDiagnosis
		if final {
			req.Messages = append(append([]model.Message(nil), a.msgs...), model.Message{Role: model.RoleSystem, Content: finalNote})
			req.Format = schema
			purpose = runrecord.PurposeFinal
		} else {
			req.Tools = tools
		}
		resp, err := a.rc.CallModel(a.cfg.Model, purpose, req, a.cfg.Reserved)
		if err != nil {
			return a.fail(err)
		}
		if len(resp.Message.ToolCalls) > 0 {
			if final {
				// The model ignored the stop: a controlled stop, no draft.
				reason := stop
				if reason == "" {
					reason = runrecord.StopModelBudget
				}
				return a.stopped(reason)
			}
			calls := resp.Message.ToolCalls
			excess := len(calls) - harness.MaxCallsPerAnswer
			if excess > 0 {
				// The first call past the cap stands for all of them.
				calls = calls[:harness.MaxCallsPerAnswer+1]
			}
			a.msgs = append(a.msgs, model.Message{Role: model.RoleAssistant, Content: resp.Message.Content, ToolCalls: calls})
			for i, call := range calls {
				if r := a.rc.Interrupted(); r != "" {
					return a.fail(&harness.StopError{Reason: r})
				}
				var obs string
				if i == harness.MaxCallsPerAnswer {
					obs = a.boundary.RefuseExcess(call, excess)
				} else {
					obs = a.boundary.Handle(call)
				}
				a.msgs = append(a.msgs, model.Message{Role: model.RoleTool, Content: obs, ToolName: call.Name, ToolCallID: call.ID})
			}
			if r := a.rc.Interrupted(); r != "" {
				return a.fail(&harness.StopError{Reason: r})
			}
			continue
		}
		return a.answer(resp.Message.Content, stop)
	}
}

// answer parses the final text; an invalid draft is never repaired.
// A draft given after a required stop keeps that stop's reason for release.
func (a *loop) answer(text string, stop runrecord.StopReason) Result {
	draft, err := ParseDraft(text, a.cfg.Limits.Draft)
	if err != nil {
		snap := a.boundary.Snapshot(runrecord.StopInvalidOutput)
		a.rc.Terminate(runrecord.StopInvalidOutput)
		res := Result{StopReason: runrecord.StopInvalidOutput, Err: err}
		if snap.HasProgress() {
			res.Snapshot = &snap
		}
		return res
	}
	if err := a.rc.ReserveBytes(len(text)); err != nil {
		return a.stopped(runrecord.StopByteBudget)
	}
	reason := runrecord.StopCompleted
	if stop != "" {
		reason = stop
	}
	return Result{Draft: draft, DraftJSON: strings.TrimSpace(text), StopReason: reason}
}

// stopped ends the run with a controlled stop and its snapshot.
func (a *loop) stopped(reason runrecord.StopReason) Result {
	a.rc.Terminate(reason)
	snap := a.boundary.Snapshot(reason)
	return Result{StopReason: reason, Snapshot: &snap}
}

// fail classifies an error from a round: budgets and the deadline are
// controlled stops, cancellation is cancellation, a model server failure is
// MODEL_UNAVAILABLE, anything else (the audit store) fails closed.
func (a *loop) fail(err error) Result {
	reason := harness.ReasonOf(err)
	switch reason {
	case runrecord.StopCancelled:
		a.rc.Terminate(reason)
		return Result{StopReason: reason, Err: err}
	case runrecord.StopModelBudget, runrecord.StopTokenBudget, runrecord.StopByteBudget, runrecord.StopToolBudget, runrecord.StopDeadline, runrecord.StopSaturated:
		return a.stopped(reason)
	case "":
	default:
		a.rc.Terminate(reason)
		return Result{StopReason: reason, Err: err}
	}
	switch model.KindOf(err) {
	case model.ErrCancelled:
		a.rc.Terminate(runrecord.StopCancelled)
		return Result{StopReason: runrecord.StopCancelled, Err: err}
	case model.ErrTimeout:
		if a.rc.Interrupted() == runrecord.StopDeadline {
			return a.stopped(runrecord.StopDeadline)
		}
		a.rc.Terminate(runrecord.StopModelUnavailable)
		return Result{StopReason: runrecord.StopModelUnavailable, Err: err}
	case "":
	default:
		// Any failure of the model server (unreachable, HTTP 4xx/5xx, a cut
		// or malformed stream, an error line, an HTML page) is the model's,
		// not ours: MODEL_UNAVAILABLE, with the model error kept for the hint.
		a.rc.Terminate(runrecord.StopModelUnavailable)
		return Result{StopReason: runrecord.StopModelUnavailable, Err: err}
	}
	a.rc.Terminate(runrecord.StopInternal)
	return Result{StopReason: runrecord.StopInternal, Err: err}
}

// SystemPrompt assembles the system prompt for the query's language: its
// rules, the list of evidence tools (guide, by language, as
// Config.ToolGuide), the playbook catalog and the draft's schema.
func SystemPrompt(language, query string, playbooks tools.Playbooks, guide map[string]string) string {
	lang := PromptLanguage(language, query)
	base := prompts.DiagnosisEN
	if lang == "zh" {
		base = prompts.DiagnosisZH
	}
	return strings.NewReplacer("{{TOOLS}}", guide[lang], "{{CATALOG}}", Catalog(playbooks), "{{SCHEMA}}", string(DraftSchema())).Replace(base)
}

// toolGuide is cfg.ToolGuide, or, for a language it has no list for, the
// names of the evidence tools cfg offers.
func toolGuide(cfg Config) map[string]string {
	var names []string
	if cfg.Tools != nil {
		for _, n := range cfg.Tools.Names() {
			if n != harness.ReadSkillTool {
				names = append(names, "  - `"+n+"`")
			}
		}
	}
	out := map[string]string{}
	for _, lang := range []string{"en", "zh"} {
		out[lang] = cfg.ToolGuide[lang]
		if out[lang] == "" {
			out[lang] = strings.Join(names, "\n")
		}
	}
	return out
}

// PromptLanguage resolves auto by the query's script: Han characters → zh.
func PromptLanguage(language, query string) string {
	switch language {
	case "zh", "en":
		return language
	}
	for _, r := range query {
		if unicode.Is(unicode.Han, r) {
			return "zh"
		}
	}
	return "en"
}

// Catalog is the compact playbook list for the prompt: names and descriptions only.
func Catalog(playbooks tools.Playbooks) string {
	if playbooks == nil || len(playbooks.List()) == 0 {
		return "(no playbooks)"
	}
	var b strings.Builder
	for _, p := range playbooks.List() {
		fmt.Fprintf(&b, "- %s: %s\n", p.Name, p.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}
