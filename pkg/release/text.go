package release

import (
	"sort"
	"strings"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/textclip"
)

// idPlaceholder replaces a Tool Call ID found in the model's words, so no ID
// of the run can reach published content.
const idPlaceholder = "[evidence]"

// scrubber removes every Tool Call ID of the run (and anything shaped like
// one) from text that will be published.
type scrubber struct{ ids []string }

// newScrubber knows the run's IDs, longest first so no ID is cut by a prefix.
func newScrubber(invs []harness.Invocation) scrubber {
	seen := map[string]bool{}
	var ids []string
	for _, inv := range invs {
		if inv.ToolCallID != "" && !seen[inv.ToolCallID] {
			seen[inv.ToolCallID] = true
			ids = append(ids, inv.ToolCallID)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if len(ids[i]) != len(ids[j]) {
			return len(ids[i]) > len(ids[j])
		}
		return ids[i] < ids[j]
	})
	return scrubber{ids: ids}
}

func (s scrubber) scrub(text string) string {
	for _, id := range s.ids {
		if strings.Contains(text, id) {
			text = strings.ReplaceAll(text, id, idPlaceholder)
		}
	}
	return model.ReplaceToolCallIDs(text, idPlaceholder)
}

// inline makes model or tool text safe for one published line: secrets
// redacted, Tool Call IDs removed, control characters stripped, whitespace
// (newlines included) collapsed, and the result bounded to n bytes on a
// rune boundary.
func (s scrubber) inline(text string, n int) string {
	text = redact.StripControl(s.scrub(redact.String(text)))
	return textclip.Bytes(strings.Join(strings.Fields(text), " "), n)
}

// safe is inline for text that comes from no model: redaction, control
// stripping, whitespace collapsing and the byte bound.
func safe(text string, n int) string {
	text = redact.StripControl(redact.String(text))
	return textclip.Bytes(strings.Join(strings.Fields(text), " "), n)
}
