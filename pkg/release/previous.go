package release

import (
	"encoding/json"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of a PreviousTurn before it is fitted to limits.previous_turn.
const (
	prevQuery      = 1024
	prevConclusion = 600
	prevScope      = 400
	prevListItem   = 300
	prevMissing    = 10
	prevRefs       = 8
	prevRefField   = 200
	// prevMinText is the smallest cap the shrinking step goes down to.
	prevMinText = 16
)

// prevCaps are the text caps one fitting attempt uses.
type prevCaps struct{ query, conclusion, scope int }

// PreviousTurn builds the bounded, frozen context a follow-up diagnosis of
// the same session receives. The rule is deterministic and needs no model:
//
//  1. query ≤ 1 KiB, summary and root_cause ≤ 600 bytes, scope (the distinct
//     finding scopes joined by "; ") and limitations.scope ≤ 400 bytes,
//     missing_info ≤ 10 items of ≤ 300 bytes, knowledge_refs ≤ 8 with each
//     field ≤ 200 bytes; every cut is on a rune boundary and marked "…".
//  2. While its JSON (encoded exactly as the agent encodes it) is larger than
//     limit (limits.previous_turn): drop knowledge_refs from the end, then missing_info
//     items from the end, then halve the text caps of step 1 (down to 16
//     bytes each).
//  3. If it still does not fit, or p is not a valid PublishedResult, there
//     is no PreviousTurn (nil).
func (p *PublishedResult) PreviousTurn(limit int) *agent.PreviousTurn {
	if p == nil || limit <= 0 || p.validate() != nil {
		return nil
	}
	caps := prevCaps{query: prevQuery, conclusion: prevConclusion, scope: prevScope}
	refs := min(len(p.KnowledgeRefs), prevRefs)
	missing := min(len(p.Limitations.MissingInfo), prevMissing)
	for {
		pt := p.previousTurn(caps, refs, missing)
		if fits(pt, limit) {
			return pt
		}
		switch {
		case refs > 0:
			refs--
		case missing > 0:
			missing--
		case caps.query > prevMinText || caps.conclusion > prevMinText || caps.scope > prevMinText:
			caps = prevCaps{query: max(caps.query/2, prevMinText), conclusion: max(caps.conclusion/2, prevMinText), scope: max(caps.scope/2, prevMinText)}
		default:
			return nil
		}
	}
}

// previousTurn is one attempt with the given caps and list lengths.
func (p *PublishedResult) previousTurn(c prevCaps, refs, missing int) *agent.PreviousTurn {
	pt := &agent.PreviousTurn{
		Query: textclip.Bytes(safeQuery(p.Query), c.query),
		Conclusion: &agent.Conclusion{
			Summary:    safe(p.Conclusion.Summary, c.conclusion),
			RootCause:  safe(p.Conclusion.RootCause, c.conclusion),
			Confidence: p.Conclusion.Confidence,
		},
		Scope:         safe(p.findingScopes(), c.scope),
		Limitations:   agent.Limitations{Scope: safe(p.Limitations.Scope, c.scope), MissingInfo: []string{}},
		KnowledgeRefs: []tools.DocRef{},
	}
	for _, s := range p.Limitations.MissingInfo {
		if len(pt.Limitations.MissingInfo) == missing {
			break
		}
		if s = safe(s, min(prevListItem, c.scope)); s != "" {
			pt.Limitations.MissingInfo = append(pt.Limitations.MissingInfo, s)
		}
	}
	for _, r := range p.KnowledgeRefs[:refs] {
		pt.KnowledgeRefs = append(pt.KnowledgeRefs, tools.DocRef{
			DocID: safe(r.DocID, prevRefField), Title: safe(r.Title, prevRefField), Source: safe(r.Source, prevRefField),
		})
	}
	return pt
}

// findingScopes is what the released diagnosis checked: its findings'
// distinct scopes in order.
func (p *PublishedResult) findingScopes() string {
	var scopes []string
	seen := map[string]bool{}
	for _, f := range p.Findings {
		s := strings.TrimSpace(f.Scope)
		if s != "" && !seen[s] {
			seen[s] = true
			scopes = append(scopes, s)
		}
	}
	return strings.Join(scopes, "; ")
}

// fits measures pt exactly as agent input encodes it (encoding/json).
func fits(pt *agent.PreviousTurn, limit int) bool {
	b, err := json.Marshal(pt)
	return err == nil && len(b) <= limit
}
