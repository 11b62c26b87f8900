package runrecord

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

// The intents of a run: the three the router gives (a stored run has ""
// until it is routed), and TOOL_CALL, one evidence tool called directly by
// an MCP client, never routed, replayed or resumed as a conversation.
const (
	IntentDiagnosis      = "DIAGNOSIS"
	IntentSystemChat     = "SYSTEM_CHAT"
	IntentKnowledgeQuery = "KNOWLEDGE_QUERY"
	IntentToolCall       = "TOOL_CALL"
)

// Intents lists every intent, for the store's checks.
func Intents() []string {
	return []string{IntentDiagnosis, IntentSystemChat, IntentKnowledgeQuery, IntentToolCall}
}
