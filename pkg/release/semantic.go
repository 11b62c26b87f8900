package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/strictjson"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/prompts"
)

// Verdict is the SemanticGuard model's whole answer.
type Verdict struct {
	Verdict string   `json:"verdict" jsonschema:"required,enum=SUPPORTED,enum=UNSUPPORTED"`
	Reasons []string `json:"reasons" jsonschema:"required,maxItems=10,minLength=1,maxLength=500"`
}

// Bounds of a verdict answer. Verdict's tags state maxReasonBytes and
// maxReasons in the schema; TestVerdictSchemaBounds holds them equal.
const (
	maxVerdictBytes = 8192
	maxReasonBytes  = 500
)

// VerdictSchema is the JSON Schema of Verdict, generated from the Go type,
// for the guard prompt and Ollama's `format`.
func VerdictSchema() json.RawMessage { return append(json.RawMessage(nil), verdictSchema()...) }

var verdictSchema = sync.OnceValue(func() json.RawMessage {
	return schema.Of(&Verdict{})
})

// ErrInvalidVerdict marks a SemanticGuard answer that breaks its contract.
var ErrInvalidVerdict = errors.New("invalid semantic guard verdict")

// ParseVerdict strictly parses the guard's answer: exactly one JSON object
// (no fence, no prose), no unknown, duplicate or wrong-case member, verdict
// in its enum, reasons present with at most 10 non-blank items of at most
// 500 bytes. It never repairs.
func ParseVerdict(text string) (Verdict, error) {
	bad := func(format string, args ...any) (Verdict, error) {
		return Verdict{}, fmt.Errorf("%w: %s", ErrInvalidVerdict, fmt.Sprintf(format, args...))
	}
	var w struct {
		Verdict *string   `json:"verdict"`
		Reasons *[]string `json:"reasons"`
	}
	if err := strictjson.Decode(text, maxVerdictBytes, &w); err != nil {
		return bad("%v", err)
	}
	if w.Verdict == nil || w.Reasons == nil {
		return bad("verdict and reasons are both required")
	}
	if *w.Verdict != runrecord.VerdictSupported && *w.Verdict != runrecord.VerdictUnsupported {
		return bad("verdict = %q, must be SUPPORTED or UNSUPPORTED", *w.Verdict)
	}
	if len(*w.Reasons) > maxReasons {
		return bad("%d reasons, at most %d", len(*w.Reasons), maxReasons)
	}
	for i, r := range *w.Reasons {
		if strings.TrimSpace(r) == "" || len(r) > maxReasonBytes {
			return bad("reasons[%d] must be 1 to %d bytes of text", i, maxReasonBytes)
		}
	}
	return Verdict{Verdict: *w.Verdict, Reasons: append([]string{}, *w.Reasons...)}, nil
}

// guardInput is the SemanticGuard's single user message.
type guardInput struct {
	Query      string            `json:"query"`
	Conclusion *agent.Conclusion `json:"conclusion"`
	Findings   []guardFinding    `json:"findings"`
}

type guardFinding struct {
	Claim string       `json:"claim"`
	Scope string       `json:"scope"`
	Cited []guardCited `json:"cited"`
}

// guardCited carries an observation exactly as the model saw it.
type guardCited struct {
	ToolCallID  string          `json:"tool_call_id"`
	Tool        string          `json:"tool"`
	Observation json.RawMessage `json:"observation"`
}

// SemanticGuardRequest is the one no-tool request of the SemanticGuard: the
// verifier prompt and the draft's FINDINGs, each with the observations it
// cites (byID holds the run's invocations by Tool Call ID).
func SemanticGuardRequest(language, query string, d *agent.Draft, byID map[string]harness.Invocation) (model.Request, error) {
	in := guardInput{Query: query, Conclusion: d.Conclusion, Findings: []guardFinding{}}
	for _, it := range d.Analysis {
		if it.Type != agent.Finding {
			continue
		}
		f := guardFinding{Claim: it.Claim, Scope: it.Scope, Cited: []guardCited{}}
		for _, id := range it.ToolCallIDs {
			inv, ok := byID[id]
			if !ok {
				return model.Request{}, fmt.Errorf("semantic guard request: %q is no invocation of this run", id)
			}
			f.Cited = append(f.Cited, guardCited{ToolCallID: id, Tool: inv.Tool, Observation: inv.Observation})
		}
		in.Findings = append(in.Findings, f)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return model.Request{}, fmt.Errorf("semantic guard request: %w", err)
	}
	return model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: SemanticGuardPrompt(language, query)},
			{Role: model.RoleUser, Content: strings.TrimSuffix(buf.String(), "\n")},
		},
		Format: VerdictSchema(),
	}, nil
}

// SemanticGuardPrompt is the verifier's system prompt in the query's language.
func SemanticGuardPrompt(language, query string) string {
	base := prompts.SemanticGuardEN
	if agent.PromptLanguage(language, query) == "zh" {
		base = prompts.SemanticGuardZH
	}
	return strings.ReplaceAll(base, "{{SCHEMA}}", string(VerdictSchema()))
}

// semanticGuard makes the one guard call through the run's model interceptor
// (it uses the model call the agent kept free). It returns the review and,
// when the run itself was interrupted meanwhile, the interruption's reason.
func semanticGuard(rc *harness.RunContext, cfg Config, query string, d *agent.Draft, byID map[string]harness.Invocation) (GuardReview, runrecord.StopReason) {
	fail := func(reason string) (GuardReview, runrecord.StopReason) {
		return runrecord.NewGuardReview(runrecord.GuardSemantic, runrecord.VerdictError, []string{safe(reason, maxReasonBytes)}), ""
	}
	if cfg.Model == nil {
		return fail("no model configured for the semantic guard")
	}
	req, err := SemanticGuardRequest(cfg.Language, query, d, byID)
	if err != nil {
		return fail(err.Error())
	}
	resp, err := rc.CallModel(cfg.Model, runrecord.PurposeSemanticGuard, req, 0)
	if err != nil {
		if errors.Is(err, harness.ErrInterrupted) || rc.Interrupted() != "" {
			reason := harness.ReasonOf(err)
			if r := rc.Interrupted(); r != "" {
				reason = r
			}
			return runrecord.NewGuardReview(runrecord.GuardSemantic, runrecord.VerdictError, []string{"not answered: the run was interrupted (" + string(reason) + ")"}), reason
		}
		if r := harness.ReasonOf(err); r != "" {
			return fail("not run: " + string(r))
		}
		if k := model.KindOf(err); k != "" {
			return fail("model error: " + string(k))
		}
		return fail("model error: " + err.Error())
	}
	v, err := ParseVerdict(resp.Message.Content)
	if err != nil {
		return fail(err.Error())
	}
	reasons := make([]string, 0, len(v.Reasons))
	for _, r := range v.Reasons {
		reasons = append(reasons, safe(r, maxReasonBytes))
	}
	return runrecord.NewGuardReview(runrecord.GuardSemantic, v.Verdict, reasons), ""
}
