// Package runrecord declares, once, the records and vocabulary of one run
// that the harness produces, the use case reports and the run store keeps:
// the run status, release outcome, lifecycle and stop reason, an evidence
// check, the usage and the settings a run was made under, and the audit's
// words (invocation kinds, controls, model-round purposes, guards, intents;
// audit.go) the store's SQL CHECK sets accept. Their JSON is the
// `-o json` output and the stored documents (docs/SPEC.md), so a field or
// tag changed here changes both.
package runrecord

import (
	"strings"
	"time"
)

// RunStatus is a stored run's status: RUNNING until its single terminal
// transition, then SUCCESS (a released SUCCESS or FALLBACK), FAILED or
// CANCELLED (docs/SPEC.md#diagnose--o-json).
type RunStatus string

// The run statuses.
const (
	RunStatusRunning   RunStatus = "RUNNING"
	RunStatusSuccess   RunStatus = "SUCCESS"
	RunStatusFailed    RunStatus = "FAILED"
	RunStatusCancelled RunStatus = "CANCELLED"
)

// Outcome is the release outcome of a finished run (docs/SPEC.md#release-outcomes).
type Outcome string

// The release outcomes, from the best a run can end with to the worst.
const (
	// OutcomeSuccess: a conclusion passed every release check and is published.
	OutcomeSuccess Outcome = "SUCCESS"
	// OutcomeFallback: the run finished honestly without a publishable conclusion.
	OutcomeFallback Outcome = "FALLBACK"
	// OutcomeFailed: a failure without safe progress to show.
	OutcomeFailed Outcome = "FAILED"
	// OutcomeCancelled: the run was cancelled; nothing is published.
	OutcomeCancelled Outcome = "CANCELLED"
)

// Status is the run status an outcome is stored with: a FALLBACK is an
// honest answer, so its run succeeded.
func (o Outcome) Status() RunStatus {
	switch o {
	case OutcomeSuccess, OutcomeFallback:
		return RunStatusSuccess
	case OutcomeCancelled:
		return RunStatusCancelled
	}
	return RunStatusFailed
}

// Lifecycle is the run's control state; it leaves RUNNING exactly once.
type Lifecycle string

// The lifecycle states of docs/SPEC.md#lifecycle.
const (
	Running         Lifecycle = "RUNNING"
	Completed       Lifecycle = "COMPLETED"
	BudgetExhausted Lifecycle = "BUDGET_EXHAUSTED"
	DeadlineReached Lifecycle = "DEADLINE_EXCEEDED"
	Cancelled       Lifecycle = "CANCELLED"
	Failed          Lifecycle = "FAILED"
)

// StopReason says why a run ended, in the words of docs/SPEC.md#stop-reasons.
type StopReason string

// The stop reasons a run can end with.
const (
	StopCompleted        StopReason = "COMPLETED"
	StopNoConclusion     StopReason = "NO_CONCLUSION"
	StopSaturated        StopReason = "INFORMATION_SATURATED"
	StopToolBudget       StopReason = "TOOL_BUDGET_EXHAUSTED"
	StopModelBudget      StopReason = "MODEL_BUDGET_EXHAUSTED"
	StopTokenBudget      StopReason = "TOKEN_BUDGET_EXHAUSTED"
	StopByteBudget       StopReason = "BYTE_BUDGET_EXHAUSTED"
	StopDeadline         StopReason = "DEADLINE_EXCEEDED"
	StopCancelled        StopReason = "CANCELLED"
	StopInvalidOutput    StopReason = "INVALID_OUTPUT"
	StopGuardRejected    StopReason = "GUARD_REJECTED"
	StopInputRejected    StopReason = "INPUT_REJECTED"
	StopModelUnavailable StopReason = "MODEL_UNAVAILABLE"
	StopRoutingFailed    StopReason = "ROUTING_UNAVAILABLE"
	StopInternal         StopReason = "INTERNAL_ERROR"
	// StopInterrupted: the run's process died before finishing it; the run
	// store's recovery sets it (with the same error code) when the store is
	// next opened for writing. No run in progress ends with it.
	StopInterrupted StopReason = "INTERRUPTED"
)

// RunStatuses lists every run status, for exhaustive tests and checks.
func RunStatuses() []RunStatus {
	return []RunStatus{RunStatusRunning, RunStatusSuccess, RunStatusFailed, RunStatusCancelled}
}

// Outcomes lists every release outcome, best first.
func Outcomes() []Outcome {
	return []Outcome{OutcomeSuccess, OutcomeFallback, OutcomeFailed, OutcomeCancelled}
}

// Lifecycles lists every lifecycle state, RUNNING first.
func Lifecycles() []Lifecycle {
	return []Lifecycle{Running, Completed, BudgetExhausted, DeadlineReached, Cancelled, Failed}
}

// StopReasons lists every stop reason a run can end with.
func StopReasons() []StopReason {
	return []StopReason{
		StopCompleted, StopNoConclusion, StopSaturated, StopToolBudget, StopModelBudget, StopTokenBudget,
		StopByteBudget, StopDeadline, StopCancelled, StopInvalidOutput, StopGuardRejected, StopInputRejected,
		StopModelUnavailable, StopRoutingFailed, StopInternal, StopInterrupted,
	}
}

// Check is one completed evidence check: in the progress snapshot and the
// fallback, in the `checks` of `-o json` and in the run's stored `checks`
// (docs/SPEC.md#diagnose--o-json). Where it is shown or stored an ERROR's
// code is folded into the summary (Folded), so ErrorCode is empty there;
// runs stored before that fold carry it as written.
type Check struct {
	Tool           string `json:"tool"`
	EvidenceStatus string `json:"evidence_status"`
	ErrorCode      string `json:"error_code,omitempty"`
	Summary        string `json:"summary"`
	// EmptyWindow says a NO_EVIDENCE check's window held no data at all:
	// the source and its actual range (missing data, not a negative).
	EmptyWindow string `json:"empty_window,omitempty"`
}

// Folded is the check as shown and stored: its error code, if any, at the
// end of the summary in parentheses.
func (c Check) Folded() Check {
	if c.ErrorCode == "" {
		return c
	}
	c.Summary = strings.TrimSpace(c.Summary + " (" + c.ErrorCode + ")")
	c.ErrorCode = ""
	return c
}

// Usage is what a run has consumed: the budget's counters and the real time
// it took. It is the `usage` of `-o json` and the stored run's figures.
type Usage struct {
	ModelCalls       int   `json:"model_calls"`
	ToolCalls        int   `json:"tool_calls"`
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	Bytes            int   `json:"bytes"`
	DurationMS       int64 `json:"duration_ms"`
}

// Tokens is the figure the token budget is charged with.
func (u Usage) Tokens() int { return u.PromptTokens + u.CompletionTokens }

// Settings are the limits a run is made under, stored with it (the run's
// `budget` column) so a replay uses the same ones whatever today's
// configuration says: the [budget] table inline, the [limits] table and
// the answer language.
type Settings struct {
	Budget
	// Limits are the agent's text limits; nil in runs stored before they were recorded.
	Limits *Limits `json:"limits,omitempty"`
	// Language is the answer language; "" in runs stored before it was recorded.
	Language string `json:"language,omitempty"`
	// Provider is the model provider that answered (ollama, openai); "" in
	// runs stored before it was recorded, which were all Ollama's.
	Provider string `json:"provider,omitempty"`
	// Demo says the run used the built-in demo workspace (--demo), so a
	// replay uses it too without being told.
	Demo bool `json:"demo,omitempty"`
}

// ProviderName is the provider that answered a run, "ollama" for runs
// stored before providers were recorded.
func (s Settings) ProviderName() string {
	if s.Provider == "" {
		return "ollama"
	}
	return s.Provider
}

// Budget bounds one run; the harness enforces it. Its tags give the [budget]
// table's keys, defaults and bounds (internal/config reads them).
type Budget struct {
	MaxModelCalls int           `toml:"max_model_calls" json:"max_model_calls" default:"8" min:"1" max:"100"`
	MaxToolCalls  int           `toml:"max_tool_calls" json:"max_tool_calls" default:"6" min:"1" max:"100"`
	MaxTokens     int           `toml:"max_tokens" json:"max_tokens" default:"60000" min:"1024" max:"10000000"`
	MaxRunBytes   int           `toml:"max_run_bytes" json:"max_run_bytes" default:"262144" min:"4096" max:"67108864"`
	Deadline      time.Duration `toml:"deadline" json:"deadline" default:"5m" min:"1s" max:"24h"`
	// MaxNoGain is how many consecutive NO_GAIN evaluations force STOP_REQUIRED.
	MaxNoGain int `toml:"max_no_gain" json:"max_no_gain" default:"2" min:"1" max:"100"`
}

// Limits are the UTF-8 byte bounds of the texts that enter or leave a run
// (agent.Limits is this type).
type Limits struct {
	Query        int `toml:"query" json:"query" default:"4096" min:"256" max:"1048576"`
	PreviousTurn int `toml:"previous_turn" json:"previous_turn" default:"8192" min:"256" max:"1048576"`
	Input        int `toml:"input" json:"input" default:"12288" min:"256" max:"1048576"`
	Draft        int `toml:"draft" json:"draft" default:"16384" min:"1024" max:"1048576"`
	Observation  int `toml:"observation" json:"observation" default:"8192" min:"1024" max:"1048576"`
}
