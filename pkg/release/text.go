package release

import (
	"sort"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
)

// idPlaceholder replaces a Tool Call ID found in the model's words, so no ID
// of the run can reach published content.
const idPlaceholder = "[evidence]"

// scrubber removes every Tool Call ID of the run (and anything shaped like
// one) from text that will be published, leaving idPlaceholder in its
// place, or nothing when drop is set.
type scrubber struct {
	ids  []string
	drop bool
}

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

// lookupScrubber is the scrubber of a knowledge answer: it drops the
// lookup's Tool Call ID (and anything shaped like one) without a trace,
// since each item already links the runbook sections it rests on.
func lookupScrubber(lookupID string) scrubber {
	if lookupID == "" {
		return scrubber{drop: true}
	}
	return scrubber{ids: []string{lookupID}, drop: true}
}

// scrub replaces the run's Tool Call IDs and anything shaped like one. In
// drop mode a removed ID can join its neighbours into a new one
// ("call_0a" + "call_1" + "000000"), so it repeats until nothing changes;
// each pass that changes the text makes it shorter.
func (s scrubber) scrub(text string) string {
	placeholder := idPlaceholder
	if s.drop {
		placeholder = ""
	}
	for {
		out := text
		for _, id := range s.ids {
			if strings.Contains(out, id) {
				out = strings.ReplaceAll(out, id, placeholder)
			}
		}
		out = model.ReplaceToolCallIDs(out, placeholder)
		if out == text || !s.drop {
			return out
		}
		text = out
	}
}

// inline makes model or tool text safe for one published line: secrets
// redacted, Tool Call IDs removed, control characters stripped, whitespace
// (newlines included) collapsed, and the result bounded to n bytes on a
// rune boundary.
func (s scrubber) inline(text string, n int) string {
	text = s.scrub(egress.Mask(text).Shown().String())
	return textclip.Bytes(strings.Join(strings.Fields(text), " "), n)
}

// safe is inline for text that comes from no model: redaction, control
// stripping, whitespace collapsing and the byte bound.
func safe(text string, n int) string {
	text = egress.Mask(text).Shown().String()
	return textclip.Bytes(strings.Join(strings.Fields(text), " "), n)
}
