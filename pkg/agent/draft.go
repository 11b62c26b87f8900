package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/invopop/jsonschema"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/strictjson"
)

// Draft is the model's final answer: a diagnosis that is not yet released.
// The release guards decide whether any of it may be published.
type Draft struct {
	Conclusion      *Conclusion    `json:"conclusion" jsonschema:"required,description=null unless a FINDING supports a root cause"`
	Analysis        []AnalysisItem `json:"analysis" jsonschema:"required,maxItems=20"`
	ActionPlan      []Action       `json:"action_plan" jsonschema:"required,maxItems=10"`
	Recommendations []string       `json:"recommendations" jsonschema:"required,maxItems=10,minLength=1,maxLength=300"`
	Limitations     Limitations    `json:"limitations" jsonschema:"required"`
}

// Conclusion is a root cause claim; only evidence-backed drafts carry one.
type Conclusion struct {
	Summary    string `json:"summary" jsonschema:"required,minLength=1,maxLength=600"`
	RootCause  string `json:"root_cause" jsonschema:"required,minLength=1,maxLength=600"`
	Confidence string `json:"confidence" jsonschema:"required,enum=HIGH,enum=MEDIUM,enum=LOW"`
}

// AnalysisItem is one claim bound to the Tool Call IDs that support it.
type AnalysisItem struct {
	Type        string   `json:"type" jsonschema:"required,enum=FINDING,enum=NEGATIVE_OBSERVATION"`
	Claim       string   `json:"claim" jsonschema:"required,minLength=1,maxLength=600"`
	Scope       string   `json:"scope,omitempty" jsonschema:"maxLength=300,description=what was checked; required for NEGATIVE_OBSERVATION"`
	ToolCallIDs []string `json:"tool_call_ids" jsonschema:"required,minItems=1,maxItems=8"`
}

// Action is one step of the plan, with its priority and risk.
type Action struct {
	Priority string `json:"priority" jsonschema:"required,enum=P0,enum=P1,enum=P2"`
	Step     string `json:"step" jsonschema:"required,minLength=1,maxLength=400"`
	Risk     string `json:"risk" jsonschema:"required,enum=LOW,enum=MEDIUM,enum=HIGH"`
}

// Limitations says what the diagnosis covered and what it lacks.
type Limitations struct {
	Scope       string   `json:"scope" jsonschema:"required,maxLength=400"`
	MissingInfo []string `json:"missing_info" jsonschema:"required,maxItems=10,minLength=1,maxLength=300"`
}

// The analysis item types.
const (
	Finding             = "FINDING"
	NegativeObservation = "NEGATIVE_OBSERVATION"
)

// Text bounds the parser enforces; the struct tags state them in the schema
// and TestDraftSchemaBounds holds the two equal.
const (
	maxClaim        = 600
	maxScope        = 300
	maxStep         = 400
	maxListItem     = 300
	maxLimitScope   = 400
	maxAnalysis     = 20
	maxActions      = 10
	maxListLen      = 10
	maxCitedIDs     = 8
	maxToolCallID   = 64
	maxSummaryField = 600
)

// DraftSchema is the JSON Schema of Draft, generated from the Go types, for
// the prompt and Ollama's `format`.
func DraftSchema() json.RawMessage { return append(json.RawMessage(nil), draftSchema()...) }

// draftSchema computes the schema once; it never changes after that.
var draftSchema = sync.OnceValue(generateDraftSchema)

func generateDraftSchema() json.RawMessage {
	s := schema.Reflect(&Draft{})
	// conclusion may be null: say so, since Go pointers carry no such tag.
	c, _ := s.Properties.Get("conclusion")
	s.Properties.Set("conclusion", &jsonschema.Schema{AnyOf: []*jsonschema.Schema{c, {Type: "null"}}})
	return schema.Marshal(s)
}

// wireDraft mirrors Draft with presence-tracking fields, so a missing member
// differs from an empty one.
type wireDraft struct {
	Conclusion      jsontext.Value  `json:"conclusion"`
	Analysis        *[]wireItem     `json:"analysis"`
	ActionPlan      *[]wireAction   `json:"action_plan"`
	Recommendations *[]string       `json:"recommendations"`
	Limitations     *wireLimitation `json:"limitations"`
}

type wireConclusion struct {
	Summary    *string `json:"summary"`
	RootCause  *string `json:"root_cause"`
	Confidence *string `json:"confidence"`
}

type wireItem struct {
	Type        *string   `json:"type"`
	Claim       *string   `json:"claim"`
	Scope       *string   `json:"scope"`
	ToolCallIDs *[]string `json:"tool_call_ids"`
}

type wireAction struct {
	Priority *string `json:"priority"`
	Step     *string `json:"step"`
	Risk     *string `json:"risk"`
}

type wireLimitation struct {
	Scope       *string   `json:"scope"`
	MissingInfo *[]string `json:"missing_info"`
}

// ErrInvalidDraft marks a final answer that breaks the DiagnosisDraft contract.
var ErrInvalidDraft = errors.New("invalid diagnosis draft")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidDraft, fmt.Sprintf(format, args...))
}

// ParseDraft strictly parses the model's final text: exactly one JSON object
// and nothing else, no duplicate, unknown or wrong-case members, every
// required member present, enums and sizes respected. It never repairs.
func ParseDraft(text string, maxBytes int) (*Draft, error) {
	var w wireDraft
	if err := strictjson.Decode(text, maxBytes, &w); err != nil {
		return nil, invalid("%v", err)
	}
	return w.validate()
}

func (w *wireDraft) validate() (*Draft, error) {
	d := &Draft{}
	switch {
	case len(w.Conclusion) == 0:
		return nil, invalid("missing member conclusion")
	case w.Conclusion.Kind() == 'n':
	case w.Conclusion.Kind() == '{':
		var c wireConclusion
		if err := jsonv2.Unmarshal(w.Conclusion, &c, jsonv2.RejectUnknownMembers(true)); err != nil {
			return nil, invalid("conclusion: %v", err)
		}
		if c.Summary == nil || c.RootCause == nil || c.Confidence == nil {
			return nil, invalid("conclusion needs summary, root_cause and confidence")
		}
		if err := text("conclusion.summary", *c.Summary, maxSummaryField, true); err != nil {
			return nil, err
		}
		if err := text("conclusion.root_cause", *c.RootCause, maxSummaryField, true); err != nil {
			return nil, err
		}
		if err := enum("conclusion.confidence", *c.Confidence, "HIGH", "MEDIUM", "LOW"); err != nil {
			return nil, err
		}
		d.Conclusion = &Conclusion{Summary: *c.Summary, RootCause: *c.RootCause, Confidence: *c.Confidence}
	default:
		return nil, invalid("conclusion must be null or an object")
	}
	if w.Analysis == nil || w.ActionPlan == nil || w.Recommendations == nil || w.Limitations == nil {
		return nil, invalid("analysis, action_plan, recommendations and limitations are all required")
	}
	if len(*w.Analysis) > maxAnalysis {
		return nil, invalid("analysis has %d items, at most %d", len(*w.Analysis), maxAnalysis)
	}
	for i, it := range *w.Analysis {
		at := fmt.Sprintf("analysis[%d]", i)
		if it.Type == nil || it.Claim == nil || it.ToolCallIDs == nil {
			return nil, invalid("%s needs type, claim and tool_call_ids", at)
		}
		if err := enum(at+".type", *it.Type, Finding, NegativeObservation); err != nil {
			return nil, err
		}
		if err := text(at+".claim", *it.Claim, maxClaim, true); err != nil {
			return nil, err
		}
		item := AnalysisItem{Type: *it.Type, Claim: *it.Claim}
		if it.Scope != nil {
			if err := text(at+".scope", *it.Scope, maxScope, false); err != nil {
				return nil, err
			}
			item.Scope = *it.Scope
		}
		if item.Type == NegativeObservation && strings.TrimSpace(item.Scope) == "" {
			return nil, invalid("%s is a NEGATIVE_OBSERVATION without scope", at)
		}
		ids := *it.ToolCallIDs
		if len(ids) == 0 || len(ids) > maxCitedIDs {
			return nil, invalid("%s must cite 1 to %d tool_call_ids", at, maxCitedIDs)
		}
		for _, id := range ids {
			if err := text(at+".tool_call_ids", id, maxToolCallID, true); err != nil {
				return nil, err
			}
		}
		item.ToolCallIDs = append([]string(nil), ids...)
		d.Analysis = append(d.Analysis, item)
	}
	if len(*w.ActionPlan) > maxActions {
		return nil, invalid("action_plan has %d items, at most %d", len(*w.ActionPlan), maxActions)
	}
	for i, a := range *w.ActionPlan {
		at := fmt.Sprintf("action_plan[%d]", i)
		if a.Priority == nil || a.Step == nil || a.Risk == nil {
			return nil, invalid("%s needs priority, step and risk", at)
		}
		if err := enum(at+".priority", *a.Priority, "P0", "P1", "P2"); err != nil {
			return nil, err
		}
		if err := text(at+".step", *a.Step, maxStep, true); err != nil {
			return nil, err
		}
		if err := enum(at+".risk", *a.Risk, "LOW", "MEDIUM", "HIGH"); err != nil {
			return nil, err
		}
		d.ActionPlan = append(d.ActionPlan, Action{Priority: *a.Priority, Step: *a.Step, Risk: *a.Risk})
	}
	recs, err := list("recommendations", *w.Recommendations)
	if err != nil {
		return nil, err
	}
	d.Recommendations = recs
	l := w.Limitations
	if l.Scope == nil || l.MissingInfo == nil {
		return nil, invalid("limitations needs scope and missing_info")
	}
	if err := text("limitations.scope", *l.Scope, maxLimitScope, false); err != nil {
		return nil, err
	}
	missing, err := list("limitations.missing_info", *l.MissingInfo)
	if err != nil {
		return nil, err
	}
	d.Limitations = Limitations{Scope: *l.Scope, MissingInfo: missing}
	if d.Analysis == nil {
		d.Analysis = []AnalysisItem{}
	}
	if d.ActionPlan == nil {
		d.ActionPlan = []Action{}
	}
	return d, nil
}

func list(at string, items []string) ([]string, error) {
	if len(items) > maxListLen {
		return nil, invalid("%s has %d items, at most %d", at, len(items), maxListLen)
	}
	for i, s := range items {
		if err := text(fmt.Sprintf("%s[%d]", at, i), s, maxListItem, true); err != nil {
			return nil, err
		}
	}
	return append([]string{}, items...), nil
}

func text(at, s string, maxLen int, required bool) error {
	if required && strings.TrimSpace(s) == "" {
		return invalid("%s is blank", at)
	}
	if len(s) > maxLen {
		return invalid("%s has %d bytes, at most %d", at, len(s), maxLen)
	}
	return nil
}

func enum(at, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return invalid("%s = %q, must be one of %s", at, v, strings.Join(allowed, ", "))
}

// CitedIDs lists every Tool Call ID the draft cites, in order of first use.
func (d *Draft) CitedIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range d.Analysis {
		for _, id := range it.ToolCallIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
