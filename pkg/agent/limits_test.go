package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

// draftWith is a valid no-conclusion draft with n analysis items, each
// citing ids distinct Tool Call IDs.
func draftWith(items, ids int) string {
	var analysis []string
	for i := range items {
		var cited []string
		for j := range ids {
			cited = append(cited, fmt.Sprintf("call_%d_%d", i, j))
		}
		b, _ := json.Marshal(cited)
		analysis = append(analysis, fmt.Sprintf(`{"type":"FINDING","claim":"claim %d","tool_call_ids":%s}`, i, b))
	}
	return `{"conclusion":null,"analysis":[` + strings.Join(analysis, ",") + `],"action_plan":[],"recommendations":[],"limitations":{"scope":"s","missing_info":[]}}`
}

// The draft's count limits hold exactly at their bounds and refuse one
// past them: cited IDs per analysis item (maxCitedIDs) and analysis items
// (maxAnalysis).
func TestDraftCountLimitsAtAndPastBounds(t *testing.T) {
	tests := []struct {
		name        string
		items, ids  int
		ok          bool
		errFragment string
	}{
		{"cited IDs at the bound", 1, maxCitedIDs, true, ""},
		{"cited IDs one past", 1, maxCitedIDs + 1, false, fmt.Sprintf("must cite 1 to %d tool_call_ids", maxCitedIDs)},
		{"analysis items at the bound", maxAnalysis, 1, true, ""},
		{"analysis items one past", maxAnalysis + 1, 1, false, fmt.Sprintf("analysis has %d items, at most %d", maxAnalysis+1, maxAnalysis)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDraft(draftWith(tt.items, tt.ids), 1<<20)
			if tt.ok {
				if err != nil {
					t.Fatalf("rejected at the bound: %v", err)
				}
				if len(d.Analysis) != tt.items || len(d.Analysis[0].ToolCallIDs) != tt.ids {
					t.Fatalf("parsed %d items, %d ids", len(d.Analysis), len(d.Analysis[0].ToolCallIDs))
				}
				return
			}
			if !errors.Is(err, ErrInvalidDraft) || !strings.Contains(err.Error(), tt.errFragment) {
				t.Fatalf("err = %v, want ErrInvalidDraft saying %q", err, tt.errFragment)
			}
		})
	}
	if maxCitedIDs != 8 || maxAnalysis != 20 {
		t.Fatalf("bounds changed (%d, %d): the schema's maxItems must follow", maxCitedIDs, maxAnalysis)
	}
	for _, want := range []string{`"maxItems":20`, `"maxItems":8`} {
		if !strings.Contains(string(DraftSchema()), want) {
			t.Errorf("the draft schema lacks %s", want)
		}
	}
	reliability.Record(t, reliability.SectionMutation, "draft limits at and one past their bounds (cited IDs per item, analysis items)", map[string]any{"test": t.Name()})
}
