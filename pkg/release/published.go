package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/tools"
)

// PublishedResult is the released diagnosis of docs/SPEC.md#publishedresult: what the run store
// keeps and `-o json` prints. It holds no Tool Call ID, no raw evidence and
// no guard reason, so it is safe to show and to feed back as a PreviousTurn.
type PublishedResult struct {
	Query           string            `json:"query"`
	Conclusion      *agent.Conclusion `json:"conclusion"`
	Findings        []Finding         `json:"findings"`
	ActionPlan      []agent.Action    `json:"action_plan"`
	Recommendations []string          `json:"recommendations"`
	Limitations     agent.Limitations `json:"limitations"`
	KnowledgeRefs   []tools.DocRef    `json:"knowledge_refs"`
}

// Finding is a released analysis item: its Tool Call IDs are replaced by the
// names of the sources the cited checks read and by each cited check's
// one-line summary, so two findings of one tool can be told apart.
type Finding struct {
	Type    string   `json:"type"`
	Claim   string   `json:"claim"`
	Scope   string   `json:"scope"`
	Sources []string `json:"sources"`
	// Checks are the cited checks, one safe line each: the tool, its input
	// summary and its tally (`query_logs app service=api ERROR since 1h ·
	// 412 matched, first 09:10:03`); absent in results stored before they
	// were published.
	Checks []string `json:"checks"`
}

// checkLine is the published one-line account of a cited check: the tool,
// the harness's input summary and the adapter's tally, never its result.
func checkLine(inv harness.Invocation, sc scrubber) string {
	line := inv.Tool
	if sum := strings.TrimSpace(inv.Summary); sum != "" {
		line += " " + textclip.Bytes(sum, harness.MaxCheckSummaryBytes)
	}
	if inv.Tally != "" {
		line += " · " + inv.Tally
	}
	return sc.inline(line, maxCheckLineBytes)
}

// Bounds of published content (UTF-8 bytes and list lengths); they match the
// DiagnosisDraft bounds so a valid draft is never cut, only a hostile one.
const (
	maxQueryBytes  = 4096
	maxConclusion  = 600
	maxClaim       = 600
	maxScope       = 300
	maxLimitScope  = 400
	maxStep        = 400
	maxListItem    = 300
	maxFindings    = 20
	maxActions     = 10
	maxList        = 10
	maxSources     = 16
	maxSourceBytes = 200
	// maxCheckLineBytes bounds a finding's check line: tool, summary, tally.
	maxCheckLineBytes = 240
	maxKnowledgeRefs  = 16
	maxRefField       = 200
	// maxPublishedRaw bounds the stored JSON ParsePublished accepts.
	maxPublishedRaw = 1 << 20
)

// knowledgeTool is the evidence tool whose documents become sources and refs.
const knowledgeTool = "lookup_knowledge"

// documentsOf reads the documents of a lookup_knowledge observation (the
// harness's own, already bounded JSON); anything else has none.
func documentsOf(inv harness.Invocation) []tools.DocRef {
	if inv.Tool != knowledgeTool || len(inv.Observation) == 0 {
		return nil
	}
	var obs struct {
		Result struct {
			Documents []tools.DocRef `json:"documents"`
		} `json:"result"`
	}
	if err := json.Unmarshal(inv.Observation, &obs); err != nil {
		return nil
	}
	return obs.Result.Documents
}

// buildPublished turns a draft that passed both guards into the published
// result: text bounded and scrubbed, citations replaced by sources, and the
// cited runbook documents listed once each.
func buildPublished(query string, d *agent.Draft, byID map[string]harness.Invocation, sc scrubber) *PublishedResult {
	p := &PublishedResult{
		Query: safeQuery(query),
		Conclusion: &agent.Conclusion{
			Summary:    sc.inline(d.Conclusion.Summary, maxConclusion),
			RootCause:  sc.inline(d.Conclusion.RootCause, maxConclusion),
			Confidence: d.Conclusion.Confidence,
		},
		Findings: []Finding{}, ActionPlan: []agent.Action{}, Recommendations: []string{},
		Limitations:   agent.Limitations{Scope: sc.inline(d.Limitations.Scope, maxLimitScope), MissingInfo: []string{}},
		KnowledgeRefs: []tools.DocRef{},
	}
	refSeen := map[string]bool{}
	for i, it := range d.Analysis {
		if i == maxFindings {
			break
		}
		f := Finding{Type: it.Type, Claim: sc.inline(it.Claim, maxClaim), Scope: sc.inline(it.Scope, maxScope), Sources: []string{}, Checks: []string{}}
		srcSeen, checkSeen := map[string]bool{}, map[string]bool{}
		addSource := func(s string) {
			s = sc.inline(s, maxSourceBytes)
			if s != "" && !srcSeen[s] && len(f.Sources) < maxSources {
				srcSeen[s] = true
				f.Sources = append(f.Sources, s)
			}
		}
		for _, id := range it.ToolCallIDs {
			inv := byID[id]
			if line := checkLine(inv, sc); line != "" && !checkSeen[line] && len(f.Checks) < maxSources {
				checkSeen[line] = true
				f.Checks = append(f.Checks, line)
			}
			docs := documentsOf(inv)
			if inv.Tool != knowledgeTool || len(docs) == 0 {
				addSource(inv.Tool)
				continue
			}
			for _, doc := range docs {
				addSource(knowledgeTool + ":" + doc.Source)
				if it.Type != agent.Finding || refSeen[doc.DocID] || len(p.KnowledgeRefs) == maxKnowledgeRefs {
					continue
				}
				refSeen[doc.DocID] = true
				p.KnowledgeRefs = append(p.KnowledgeRefs, tools.DocRef{
					DocID: sc.inline(doc.DocID, maxRefField), Title: sc.inline(doc.Title, maxRefField), Source: sc.inline(doc.Source, maxRefField),
				})
			}
		}
		p.Findings = append(p.Findings, f)
	}
	for i, a := range d.ActionPlan {
		if i == maxActions {
			break
		}
		p.ActionPlan = append(p.ActionPlan, agent.Action{Priority: a.Priority, Step: sc.inline(a.Step, maxStep), Risk: a.Risk})
	}
	p.Recommendations = boundList(d.Recommendations, sc)
	p.Limitations.MissingInfo = boundList(d.Limitations.MissingInfo, sc)
	return p
}

// boundList keeps at most maxList non-blank items, each one bounded line.
func boundList(items []string, sc scrubber) []string {
	out := []string{}
	for _, s := range items {
		if len(out) == maxList {
			break
		}
		if s = sc.inline(s, maxListItem); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// safeQuery is the user's query as it may be stored and shown: redacted,
// without control characters, bounded; line breaks are kept.
func safeQuery(q string) string {
	return textclip.Bytes(strings.TrimSpace(egress.Mask(q).Shown().String()), maxQueryBytes)
}

// ParsePublished strictly decodes a stored PublishedResult (unknown,
// duplicate or wrong-case members and trailing data are refused) and checks
// its required safe fields, so a corrupt record can never become a
// PreviousTurn.
func ParsePublished(raw []byte) (*PublishedResult, error) {
	if len(raw) > maxPublishedRaw {
		return nil, fmt.Errorf("published result: %d bytes exceed %d", len(raw), maxPublishedRaw)
	}
	var p PublishedResult
	if err := jsonv2.Unmarshal(raw, &p, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("published result: %w", err)
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("published result: %w", err)
	}
	return &p, nil
}

func (p *PublishedResult) validate() error {
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	switch {
	case blank(p.Query):
		return errors.New("query is blank")
	case p.Conclusion == nil:
		return errors.New("conclusion is missing")
	case blank(p.Conclusion.Summary):
		return errors.New("conclusion.summary is blank")
	case blank(p.Conclusion.RootCause):
		return errors.New("conclusion.root_cause is blank")
	}
	if err := oneOf("conclusion.confidence", p.Conclusion.Confidence, "HIGH", "MEDIUM", "LOW"); err != nil {
		return err
	}
	for i, f := range p.Findings {
		if err := oneOf(fmt.Sprintf("findings[%d].type", i), f.Type, agent.Finding, agent.NegativeObservation); err != nil {
			return err
		}
	}
	for i, a := range p.ActionPlan {
		if err := oneOf(fmt.Sprintf("action_plan[%d].priority", i), a.Priority, "P0", "P1", "P2"); err != nil {
			return err
		}
		if err := oneOf(fmt.Sprintf("action_plan[%d].risk", i), a.Risk, "LOW", "MEDIUM", "HIGH"); err != nil {
			return err
		}
	}
	return nil
}

func oneOf(at, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s = %q, must be one of %s", at, v, strings.Join(allowed, ", "))
}
