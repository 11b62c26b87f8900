package runrecord

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// InvocationKind separates evidence, guidance and refused steps in the audit.
type InvocationKind string

// The kinds of audited tool steps.
const (
	KindEvidence InvocationKind = "EVIDENCE"
	KindGuidance InvocationKind = "GUIDANCE"
	KindControl  InvocationKind = "CONTROL"
)

// InvocationKinds lists every invocation kind, for the store's checks.
func InvocationKinds() []InvocationKind {
	return []InvocationKind{KindEvidence, KindGuidance, KindControl}
}

// The controls a tool call may get instead of being executed.
const (
	ControlRepair    = "REPAIR_REQUIRED"
	ControlDuplicate = "DUPLICATE_CALL"
	ControlStop      = "STOP_REQUIRED"
)

// Controls lists every control, for the store's checks.
func Controls() []string { return []string{ControlRepair, ControlDuplicate, ControlStop} }

// Purpose names why a model round was made, for the audit and replay.
type Purpose string

// The purposes of model rounds across the product.
const (
	PurposeDiagnosis       Purpose = "DIAGNOSIS"
	PurposeFinal           Purpose = "FINAL"
	PurposeSemanticGuard   Purpose = "SEMANTIC_GUARD"
	PurposeRouter          Purpose = "ROUTER"
	PurposeKnowledgeAnswer Purpose = "KNOWLEDGE_ANSWER"
	PurposeSystemChat      Purpose = "SYSTEM_CHAT"
)

// Purposes lists every model-round purpose, for the store's checks.
func Purposes() []Purpose {
	return []Purpose{PurposeDiagnosis, PurposeFinal, PurposeSemanticGuard, PurposeRouter, PurposeKnowledgeAnswer, PurposeSystemChat}
}

// The guards whose verdicts the audit records; GuardKnowledge checks a
// knowledge answer's references.
const (
	GuardEvidence  = "EVIDENCE"
	GuardSemantic  = "SEMANTIC"
	GuardKnowledge = "KNOWLEDGE"
)

// Guards lists every guard, for the store's checks.
func Guards() []string { return []string{GuardEvidence, GuardSemantic, GuardKnowledge} }

// The guards' verdicts, as the audit stores them: the evidence and
// knowledge guards pass or reject, the semantic guard says whether the
// evidence supports the draft, or fails to answer.
const (
	VerdictPass        = "PASS"
	VerdictReject      = "REJECT"
	VerdictSupported   = "SUPPORTED"
	VerdictUnsupported = "UNSUPPORTED"
	VerdictError       = "ERROR"
)

// The intents of a run: the three the router gives (a stored run has ""
// until it is routed); TOOL_CALL, one evidence tool called directly by an
// MCP client; and TIMELINE, an incident timeline built without a model.
// The last two are never routed or resumed as a conversation.
const (
	IntentDiagnosis      = "DIAGNOSIS"
	IntentSystemChat     = "SYSTEM_CHAT"
	IntentKnowledgeQuery = "KNOWLEDGE_QUERY"
	IntentToolCall       = "TOOL_CALL"
	IntentTimeline       = "TIMELINE"
)

// Intents lists every intent, for the store's checks.
func Intents() []string {
	return []string{IntentDiagnosis, IntentSystemChat, IntentKnowledgeQuery, IntentToolCall, IntentTimeline}
}

// The statuses of an audited tool step.
const (
	// InvocationCompleted: the adapter ran; its observation was accepted.
	InvocationCompleted = "COMPLETED"
	// InvocationRefused: not executed; a control answered instead.
	InvocationRefused = "REFUSED"
	// InvocationDiscarded: ran, but the run could not accept its observation.
	InvocationDiscarded = "DISCARDED"
	// InvocationCancelled: ran while the run was cancelled (a stop signal,
	// the client gone): whatever the adapter answered is not accepted, and
	// the call is audited ERROR CANCELLED.
	InvocationCancelled = "CANCELLED"
)

// InvocationStatuses lists every tool-step status, for exhaustive tests.
func InvocationStatuses() []string {
	return []string{InvocationCompleted, InvocationRefused, InvocationDiscarded, InvocationCancelled}
}

// Invocation is the audit record of one tool step of a run: the harness
// writes it (harness.Invocation is this type), the run store keeps every
// member (tool_invocations) and `runs show` reads it back. A member added
// here needs its column (pkg/runstore/migrations) in the same change;
// TestAuditRecordsRoundTrip in pkg/runstore holds the two together.
type Invocation struct {
	Seq            int                  `json:"seq"`
	ToolCallID     string               `json:"tool_call_id"`
	Tool           string               `json:"tool"`
	Kind           InvocationKind       `json:"kind"`
	Input          json.RawMessage      `json:"input,omitempty"` // the canonical business input, or nil
	Summary        string               `json:"summary,omitempty"`
	Status         string               `json:"status"` // one of InvocationStatuses
	EvidenceStatus tools.EvidenceStatus `json:"evidence_status,omitempty"`
	ErrorCode      string               `json:"error_code,omitempty"`
	Control        string               `json:"control,omitempty"` // one of Controls, or ""
	// Evaluated and Evaluation are the previous_observation this call carried.
	Evaluated  string `json:"evaluated,omitempty"`
	Evaluation string `json:"evaluation,omitempty"`
	// Observation is the JSON exactly as shown to the model, or nil.
	Observation json.RawMessage `json:"observation"`
	StartedAt   time.Time       `json:"started_at"`
	Duration    time.Duration   `json:"duration"`
	// Detail is the internal reason of a refused or failed step (a
	// server's message, the statement a policy refused), redacted; it
	// never reaches the model, and the audit shows it.
	Detail string `json:"detail,omitempty"`
	// EmptyWindow is the adapter's account of a NO_EVIDENCE window that held
	// no data (tools.Outcome.EmptyWindow): it may not back a negative.
	EmptyWindow string `json:"empty_window,omitempty"`
	// Tally is the adapter's few words on how much the result holds
	// (tools.Tallier: "412 matched"), for the report's check lines.
	Tally string `json:"tally,omitempty"`
}

// Ready reports whether the invocation is a completed evidence check the
// model saw and may cite.
func (inv Invocation) Ready() bool {
	return inv.Kind == KindEvidence && inv.Status == InvocationCompleted
}

// Outcome is the one word (or two) a timeline shows for the invocation:
// its control, or its evidence status with an ERROR's code.
func (inv Invocation) Outcome() string {
	if inv.Control != "" {
		return inv.Control
	}
	if inv.EvidenceStatus == tools.StatusError {
		return string(inv.EvidenceStatus) + " " + inv.ErrorCode
	}
	return string(inv.EvidenceStatus)
}

// ModelRound is the audit record of one model round: the request as sent
// and the response as received, as the JSON of pkg/model's Request and
// Response, enough to replay it. The harness writes it (harness.ModelRound
// is this type), the run store keeps every member (model_rounds) and
// replay plays it back (TestAuditRecordsRoundTrip in pkg/runstore).
type ModelRound struct {
	Seq     int     `json:"seq"`
	Purpose Purpose `json:"purpose"`
	// Request is the request as sent; required.
	Request json.RawMessage `json:"request"`
	// Response is the response as received, nil when the round failed.
	Response         json.RawMessage `json:"response,omitempty"`
	PromptTokens     int             `json:"prompt_tokens"`
	CompletionTokens int             `json:"completion_tokens"`
	StartedAt        time.Time       `json:"started_at"`
	Duration         time.Duration   `json:"duration"`
	// ErrorKind says why the round failed (a model error kind, or the stop
	// reason of a run that ended while the model answered); "" otherwise.
	ErrorKind string `json:"error_kind,omitempty"`
}

// GuardReview is the audit record of one release guard's verdict with its
// reasons: pkg/release's guards make it, the run store keeps every member
// (guard_reviews) and `runs show` reads it back
// (TestAuditRecordsRoundTrip in pkg/runstore). No reason ever reaches the
// answer or the published result.
type GuardReview struct {
	// Seq is the review's place in the run (1, 2, 3…), assigned by the store.
	Seq     int    `json:"seq"`
	Guard   string `json:"guard"`   // one of Guards
	Verdict string `json:"verdict"` // one of the Verdict… constants
	// Reasons is a JSON array of strings, or nil; kept as the stored
	// document, so a damaged one can still be shown (DecodeReasons).
	Reasons   json.RawMessage `json:"reasons,omitempty"`
	CreatedAt time.Time       `json:"created_at"` // the store's clock when zero
}

// NewGuardReview is guard's verdict with its reasons as the record keeps
// them (an empty list stays an empty array).
func NewGuardReview(guard, verdict string, reasons []string) GuardReview {
	if reasons == nil {
		reasons = []string{}
	}
	raw, err := json.Marshal(reasons)
	if err != nil { // a []string always encodes
		panic("runrecord: encode guard reasons: " + err.Error())
	}
	return GuardReview{Guard: guard, Verdict: verdict, Reasons: raw}
}

// Passed reports whether the review lets the draft go on toward release.
func (g GuardReview) Passed() bool { return g.Verdict == VerdictPass || g.Verdict == VerdictSupported }

// DecodeReasons reads the reasons; none when nil. The error names a stored
// document that is not an array of strings.
func (g GuardReview) DecodeReasons() ([]string, error) {
	if len(g.Reasons) == 0 {
		return nil, nil
	}
	var reasons []string
	if err := json.Unmarshal(g.Reasons, &reasons); err != nil {
		return nil, fmt.Errorf("stored reasons are unreadable: %w", err)
	}
	return reasons, nil
}
