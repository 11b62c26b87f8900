package release

import (
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of a knowledge answer's text that the answer's format and its
// published lines share (UTF-8 bytes).
const (
	// MaxKnowledgeItemBytes bounds one item's text.
	MaxKnowledgeItemBytes = 1000
	// MaxLimitationBytes bounds one limitation.
	MaxLimitationBytes = 300
	// maxDocSource bounds a runbook section's source in a link.
	maxDocSource = 400
)

// KnowledgeAnswer is the knowledge answer model's whole reply.
type KnowledgeAnswer struct {
	Items       []KnowledgeItem `json:"items" jsonschema:"required,minItems=1,maxItems=6"`
	Limitations []string        `json:"limitations" jsonschema:"required,maxItems=3,maxLength=300"`
}

// KnowledgeItem is one statement of a knowledge answer with the lookup and
// the runbook sections it rests on.
type KnowledgeItem struct {
	Text       string   `json:"text" jsonschema:"required,minLength=1,maxLength=1000"`
	ToolCallID string   `json:"tool_call_id" jsonschema:"required"`
	DocIDs     []string `json:"doc_ids" jsonschema:"required,minItems=1,maxItems=8"`
}

// ErrUnknownReference marks an answer item that cites another call or a
// document the lookup did not return.
var ErrUnknownReference = errors.New("knowledge answer cites an unknown reference")

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

// knowledgeAnswer renders the public Markdown: each item's text with links
// to the runbook sections it cites (title and source), then the
// limitations. It never contains a Tool Call ID; every line of the model's
// words is escaped like the diagnosis's.
// ok is false when no item has any text left to show.
func (t *texts) knowledgeAnswer(a KnowledgeAnswer, docs []tools.DocRef, sc scrubber) (md string, ok bool) {
	byID := make(map[string]tools.DocRef, len(docs))
	for _, doc := range docs {
		byID[doc.DocID] = doc
	}
	var sb strings.Builder
	for _, it := range a.Items {
		text := sc.inline(it.Text, MaxKnowledgeItemBytes)
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
			refs = append(refs, docLink(byID[id], sc))
		}
		fmt.Fprintf(&sb, "- %s (%s)\n", mdText(text), strings.Join(refs, "; "))
		ok = true
	}
	if len(a.Limitations) > 0 {
		fmt.Fprintf(&sb, "\n**%s**\n\n", t.limitations)
		for _, l := range a.Limitations {
			if l = sc.inline(l, MaxLimitationBytes); l != "" {
				fmt.Fprintf(&sb, "- %s\n", mdText(l))
			}
		}
	}
	return sb.String(), ok
}

// docLink is a Markdown link to a runbook section: its title, pointing at its source.
func docLink(doc tools.DocRef, sc scrubber) string {
	title := sc.inline(doc.Title, maxRefField)
	if title == "" {
		title = sc.inline(doc.Source, maxRefField)
	}
	title = mdTitle(title)
	src := sc.inline(doc.Source, maxDocSource)
	if src == "" {
		return title
	}
	if strings.ContainsAny(src, " ()<>") {
		src = "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(src) + ">"
	}
	return "[" + title + "](" + src + ")"
}
