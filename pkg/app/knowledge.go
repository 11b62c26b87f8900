package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/strictjson"
	"github.com/superbiz/superbiz/pkg/textclip"
	"github.com/superbiz/superbiz/pkg/tools"
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
	maxKnowledgeItemBytes   = 1000
	maxKnowledgeDocIDs      = 8
	maxKnowledgeLimitations = 3
	maxLimitationBytes      = 300
)

// knowledgeAnswerSchema is the answer call's JSON Schema (Ollama `format`
// and the prompt); ParseKnowledgeAnswer enforces the same bounds.
var knowledgeAnswerSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"items":{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"object","properties":{`+
	`"text":{"type":"string","minLength":1,"maxLength":%d},`+
	`"tool_call_id":{"type":"string"},`+
	`"doc_ids":{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"string"}}},`+
	`"required":["text","tool_call_id","doc_ids"],"additionalProperties":false}},`+
	`"limitations":{"type":"array","maxItems":%d,"items":{"type":"string","maxLength":%d}}},`+
	`"required":["items","limitations"],"additionalProperties":false}`,
	maxKnowledgeItems, maxKnowledgeItemBytes, maxKnowledgeDocIDs, maxKnowledgeLimitations, maxLimitationBytes)

// KnowledgeAnswerSchema returns the JSON Schema of a knowledge answer, so
// callers can show exactly what the model is sent.
func KnowledgeAnswerSchema() json.RawMessage { return json.RawMessage(knowledgeAnswerSchema) }

// KnowledgeAnswer is the knowledge answer model's whole reply.
type KnowledgeAnswer struct {
	Items       []KnowledgeItem `json:"items"`
	Limitations []string        `json:"limitations"`
}

// KnowledgeItem is one statement of a knowledge answer with the lookup and
// the runbook sections it rests on.
type KnowledgeItem struct {
	Text       string   `json:"text"`
	ToolCallID string   `json:"tool_call_id"`
	DocIDs     []string `json:"doc_ids"`
}

// ErrInvalidKnowledgeAnswer marks an answer that breaks its format contract.
var ErrInvalidKnowledgeAnswer = errors.New("invalid knowledge answer")

// ErrUnknownReference marks an answer item that cites another call or a
// document the lookup did not return.
var ErrUnknownReference = errors.New("knowledge answer cites an unknown reference")

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

// CheckKnowledgeReferences fails closed unless every item cites exactly the
// lookup's Tool Call ID and only doc_ids the lookup returned.
func CheckKnowledgeReferences(a KnowledgeAnswer, lookupID string, returned map[string]bool) error {
	for i, it := range a.Items {
		if it.ToolCallID != lookupID {
			return fmt.Errorf("%w: items[%d] cites another tool call", ErrUnknownReference, i)
		}
		for _, id := range it.DocIDs {
			if !returned[id] {
				return fmt.Errorf("%w: items[%d] cites a document the lookup did not return", ErrUnknownReference, i)
			}
		}
	}
	return nil
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
	return model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: strings.ReplaceAll(base, "{{SCHEMA}}", knowledgeAnswerSchema)},
			{Role: model.RoleUser, Content: strings.TrimSuffix(buf.String(), "\n")},
		},
		Format: KnowledgeAnswerSchema(),
	}, nil
}

// knowledgeQuery is the KNOWLEDGE_QUERY executor: exactly one
// lookup_knowledge through the run's ToolBoundary (canonical record, tool
// budget, bounded observation), then, only for EVIDENCE_FOUND, one no-tool
// answer call whose references are checked against that lookup.
func (d *Deps) knowledgeQuery(rc *harness.RunContext, t *chatTexts, query string) release.Decision {
	if d.Registry == nil {
		return t.failed(harness.StopInternal, t.knowledgeMissing)
	}
	if _, ok := d.Registry.Adapter(lookupKnowledgeTool); !ok {
		return t.failed(harness.StopInternal, t.knowledgeMissing)
	}
	args, err := json.Marshal(map[string]any{"input": map[string]any{"query": query, "top_k": knowledgeTopK}})
	if err != nil {
		return t.failed(harness.StopInternal, t.failText[harness.StopInternal])
	}
	b := harness.NewBoundary(rc, d.Registry, d.Limits.Observation)
	b.Handle(model.ToolCall{ID: knowledgeCallID, Name: lookupKnowledgeTool, Arguments: args})
	withChecks := func(dec release.Decision) release.Decision {
		dec.Checks = b.Snapshot(dec.StopReason).Checks
		return dec
	}
	if r := rc.Interrupted(); r != "" {
		return withChecks(t.stopped(r))
	}
	invs := b.Invocations()
	if len(invs) != 1 {
		return withChecks(t.failed(harness.StopInternal, t.failText[harness.StopInternal]))
	}
	inv := invs[0]
	switch {
	case inv.Status != harness.StatusCompleted:
		reason := b.StopRequired()
		if reason == "" {
			reason = harness.StopInternal
		}
		return withChecks(t.failed(reason, fmt.Sprintf(t.knowledgeStopped, reason)))
	case inv.EvidenceStatus == tools.StatusError && inv.ErrorCode == tools.CodeInvalidInput:
		return withChecks(t.failed(harness.StopInputRejected, t.knowledgeBig))
	case inv.EvidenceStatus == tools.StatusError:
		return withChecks(t.failed(harness.StopInternal, fmt.Sprintf(t.knowledgeError, inv.ErrorCode)))
	case inv.EvidenceStatus == tools.NoEvidence:
		// Nothing to answer from: the fixed answer, no model call.
		return withChecks(release.Decision{
			Outcome: release.Fallback, Status: release.StatusSuccess, StopReason: harness.StopNoConclusion,
			Answer: t.noEvidence,
		})
	case inv.EvidenceStatus != tools.EvidenceFound:
		return withChecks(t.failed(harness.StopInternal, t.failText[harness.StopInternal]))
	}
	docs, err := lookupDocuments(inv.Observation)
	if err != nil || len(docs) == 0 {
		return withChecks(t.failed(harness.StopInternal, t.failText[harness.StopInternal]))
	}
	req, err := KnowledgeAnswerRequest(d.Language, query, inv.Observation)
	if err != nil {
		return withChecks(t.failed(harness.StopInternal, t.failText[harness.StopInternal]))
	}
	resp, err := rc.CallModel(d.Model, harness.PurposeKnowledgeAnswer, req, 0)
	if err != nil {
		return withChecks(t.modelFailure(rc, err))
	}
	ans, err := ParseKnowledgeAnswer(resp.Message.Content)
	if err != nil {
		return withChecks(t.failed(harness.StopInvalidOutput, t.invalidAnswer))
	}
	returned := make(map[string]bool, len(docs))
	for _, doc := range docs {
		returned[doc.DocID] = true
	}
	// The reference check is a release guard: its verdict is kept for audit.
	review := release.GuardReview{Guard: runstore.GuardKnowledge, Verdict: release.VerdictPass, Reasons: []string{}}
	if err := CheckKnowledgeReferences(ans, inv.ToolCallID, returned); err != nil {
		review.Verdict, review.Reasons = release.VerdictReject, []string{err.Error()}
		dec := withChecks(t.failed(harness.StopGuardRejected, t.badReference))
		dec.Reviews = []release.GuardReview{review}
		return dec
	}
	md, ok := t.knowledgeAnswer(ans, docs, inv.ToolCallID)
	if !ok {
		return withChecks(t.failed(harness.StopInvalidOutput, t.invalidAnswer))
	}
	return withChecks(release.Decision{
		Outcome: release.Success, Status: release.StatusSuccess, StopReason: harness.StopCompleted,
		Answer: md, Reviews: []release.GuardReview{review},
	})
}

// lookupDocuments reads the documents of a lookup_knowledge observation.
func lookupDocuments(observation json.RawMessage) ([]tools.DocRef, error) {
	var o struct {
		Result struct {
			Documents []tools.DocRef `json:"documents"`
		} `json:"result"`
	}
	if err := json.Unmarshal(observation, &o); err != nil {
		return nil, fmt.Errorf("read lookup observation: %w", err)
	}
	return o.Result.Documents, nil
}

// publicLine makes model text safe for one published line: secrets
// redacted, Tool Call IDs removed, control characters stripped, whitespace
// collapsed, bounded to n bytes.
func publicLine(text, lookupID string, n int) string {
	text = redact.String(text)
	if lookupID != "" {
		text = strings.ReplaceAll(text, lookupID, "")
	}
	text = redact.StripControl(model.ReplaceToolCallIDs(text, ""))
	return textclip.Bytes(strings.Join(strings.Fields(text), " "), n)
}

// knowledgeAnswer renders the public Markdown: each item's text with links
// to the runbook sections it cites (title and source), then the
// limitations. It never contains a Tool Call ID.
// ok is false when no item has any text left to show.
func (t *chatTexts) knowledgeAnswer(a KnowledgeAnswer, docs []tools.DocRef, lookupID string) (md string, ok bool) {
	byID := make(map[string]tools.DocRef, len(docs))
	for _, doc := range docs {
		byID[doc.DocID] = doc
	}
	var sb strings.Builder
	for _, it := range a.Items {
		text := publicLine(it.Text, lookupID, maxKnowledgeItemBytes)
		if text == "" {
			continue
		}
		var refs []string
		seen := map[string]bool{}
		for _, id := range it.DocIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			refs = append(refs, docLink(byID[id]))
		}
		fmt.Fprintf(&sb, "- %s (%s)\n", text, strings.Join(refs, "; "))
		ok = true
	}
	if len(a.Limitations) > 0 {
		fmt.Fprintf(&sb, "\n**%s**\n\n", t.limitationsH)
		for _, l := range a.Limitations {
			if l = publicLine(l, lookupID, maxLimitationBytes); l != "" {
				fmt.Fprintf(&sb, "- %s\n", l)
			}
		}
	}
	return sb.String(), ok
}

// docLink is a Markdown link to a runbook section: its title, pointing at its source.
func docLink(doc tools.DocRef) string {
	title := publicLine(doc.Title, "", 200)
	if title == "" {
		title = publicLine(doc.Source, "", 200)
	}
	title = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(title)
	src := publicLine(doc.Source, "", 400)
	if src == "" {
		return title
	}
	if strings.ContainsAny(src, " ()<>") {
		src = "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(src) + ">"
	}
	return "[" + title + "](" + src + ")"
}
