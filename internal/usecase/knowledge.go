package usecase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/strictjson"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/prompts"
)

// lookupKnowledgeTool is the one evidence tool the KNOWLEDGE_QUERY executor uses.
const lookupKnowledgeTool = "lookup_knowledge"

// knowledgeCallID is the Tool Call ID of the executor's direct lookup: no
// model asked for it, so the harness-style call_<n> ID is used.
const knowledgeCallID = "call_1"

// knowledgeTopK is how many runbook sections the lookup asks for.
const knowledgeTopK = 5

// Bounds of a knowledge answer.
const (
	maxKnowledgeAnswerBytes = 16384
	maxKnowledgeItems       = 6
	maxKnowledgeItemBytes   = release.MaxKnowledgeItemBytes
	maxKnowledgeDocIDs      = 8
	maxKnowledgeLimitations = 3
	maxLimitationBytes      = release.MaxLimitationBytes
)

// KnowledgeAnswerSchema returns the JSON Schema of a knowledge answer (Ollama
// `format` and the prompt), generated from KnowledgeAnswer's tags, so
// callers can show exactly what the model is sent; ParseKnowledgeAnswer
// enforces the same bounds (TestKnowledgeAnswerSchemaBounds holds them equal).
func KnowledgeAnswerSchema() json.RawMessage { return schema.Of(KnowledgeAnswer{}) }

// KnowledgeAnswer is the knowledge answer model's whole reply; pkg/release
// declares it, as it checks and publishes it.
type KnowledgeAnswer = release.KnowledgeAnswer

// KnowledgeItem is one statement of a knowledge answer (pkg/release).
type KnowledgeItem = release.KnowledgeItem

// ErrInvalidKnowledgeAnswer marks an answer that breaks its format contract.
var ErrInvalidKnowledgeAnswer = errors.New("invalid knowledge answer")

// ParseKnowledgeAnswer strictly parses the answer call's reply: exactly one
// JSON object (no fence or prose; unknown, duplicate or wrong-case members,
// wrong types and missing members refused) with 1–6 items of non-blank,
// bounded text, each with a tool_call_id and 1–8 doc_ids, and at most 3
// bounded limitations. It never repairs.
func ParseKnowledgeAnswer(text string) (KnowledgeAnswer, error) {
	bad := func(format string, args ...any) (KnowledgeAnswer, error) {
		return KnowledgeAnswer{}, fmt.Errorf("%w: %s", ErrInvalidKnowledgeAnswer, fmt.Sprintf(format, args...))
	}
	var w struct {
		Items *[]struct {
			Text       *string   `json:"text"`
			ToolCallID *string   `json:"tool_call_id"`
			DocIDs     *[]string `json:"doc_ids"`
		} `json:"items"`
		Limitations *[]string `json:"limitations"`
	}
	if err := strictjson.Decode(text, maxKnowledgeAnswerBytes, &w); err != nil {
		return bad("%v", err)
	}
	if w.Items == nil || w.Limitations == nil {
		return bad("items and limitations are both required")
	}
	if n := len(*w.Items); n < 1 || n > maxKnowledgeItems {
		return bad("%d items, 1 to %d allowed", n, maxKnowledgeItems)
	}
	if n := len(*w.Limitations); n > maxKnowledgeLimitations {
		return bad("%d limitations, at most %d allowed", n, maxKnowledgeLimitations)
	}
	out := KnowledgeAnswer{Items: make([]KnowledgeItem, 0, len(*w.Items)), Limitations: []string{}}
	for i, it := range *w.Items {
		if it.Text == nil || it.ToolCallID == nil || it.DocIDs == nil {
			return bad("items[%d] needs text, tool_call_id and doc_ids", i)
		}
		if strings.TrimSpace(*it.Text) == "" || len(*it.Text) > maxKnowledgeItemBytes {
			return bad("items[%d].text must be 1 to %d bytes of text", i, maxKnowledgeItemBytes)
		}
		if n := len(*it.DocIDs); n < 1 || n > maxKnowledgeDocIDs {
			return bad("items[%d] has %d doc_ids, 1 to %d allowed", i, n, maxKnowledgeDocIDs)
		}
		out.Items = append(out.Items, KnowledgeItem{Text: *it.Text, ToolCallID: *it.ToolCallID, DocIDs: append([]string{}, *it.DocIDs...)})
	}
	for i, l := range *w.Limitations {
		if strings.TrimSpace(l) == "" || len(l) > maxLimitationBytes {
			return bad("limitations[%d] must be 1 to %d bytes of text", i, maxLimitationBytes)
		}
		out.Limitations = append(out.Limitations, l)
	}
	return out, nil
}

// KnowledgeAnswerRequest is the one no-tool answer request: the prompt with
// the answer schema, and the query with the lookup's observation exactly as
// recorded (its Tool Call ID and bounded documents).
func KnowledgeAnswerRequest(language, query string, observation json.RawMessage) (model.Request, error) {
	in := struct {
		Query       string          `json:"query"`
		Observation json.RawMessage `json:"observation"`
	}{query, observation}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return model.Request{}, fmt.Errorf("knowledge answer request: %w", err)
	}
	base := prompts.KnowledgeAnswerEN
	if agent.PromptLanguage(language, query) == "zh" {
		base = prompts.KnowledgeAnswerZH
	}
	format := KnowledgeAnswerSchema()
	return model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: strings.ReplaceAll(base, "{{SCHEMA}}", string(format))},
			{Role: model.RoleUser, Content: strings.TrimSuffix(buf.String(), "\n")},
		},
		Format: format,
	}, nil
}

// knowledgeQuery is the KNOWLEDGE_QUERY executor: exactly one
// lookup_knowledge through the run's ToolBoundary (canonical record, tool
// budget, bounded observation), then, only for EVIDENCE_FOUND, one no-tool
// answer call; pkg/release decides what each step publishes.
func (d *Deps) knowledgeQuery(rc *harness.RunContext, t release.Chat, query string) release.Decision {
	if d.Tools == nil {
		return t.KnowledgeMissing()
	}
	if _, ok := d.Tools.Adapter(lookupKnowledgeTool); !ok {
		return t.KnowledgeMissing()
	}
	args, err := json.Marshal(map[string]any{"input": map[string]any{"query": query, "top_k": knowledgeTopK}})
	if err != nil {
		return t.Stopped(runrecord.StopInternal)
	}
	b := harness.NewBoundary(rc, d.Tools, d.Limits.Observation)
	b.Handle(model.ToolCall{ID: knowledgeCallID, Name: lookupKnowledgeTool, Arguments: args})
	withChecks := func(dec release.Decision) release.Decision {
		dec.Checks = b.Snapshot(dec.StopReason).Checks
		return dec
	}
	if r := rc.Interrupted(); r != "" {
		return withChecks(t.Stopped(r))
	}
	invs := b.Invocations()
	if len(invs) != 1 {
		return withChecks(t.Stopped(runrecord.StopInternal))
	}
	inv := invs[0]
	if dec, proceed := t.KnowledgeLookup(inv, b.StopRequired()); !proceed {
		return withChecks(dec)
	}
	req, err := KnowledgeAnswerRequest(d.Language, query, inv.Observation)
	if err != nil {
		return withChecks(t.Stopped(runrecord.StopInternal))
	}
	resp, err := rc.CallModel(d.Model, runrecord.PurposeKnowledgeAnswer, req, 0)
	if err != nil {
		return withChecks(t.ModelFailure(rc, err))
	}
	ans, err := ParseKnowledgeAnswer(resp.Message.Content)
	if err != nil {
		return withChecks(t.KnowledgeInvalid())
	}
	return withChecks(t.Knowledge(ans, inv))
}
