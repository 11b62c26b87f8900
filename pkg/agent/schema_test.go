package agent

import (
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
)

// DraftSchema (the prompt's schema and Ollama `format`) states exactly the
// bounds ParseDraft enforces: a tag edited without its constant (or the
// reverse) fails here.
func TestDraftSchemaBounds(t *testing.T) {
	const c = "conclusion.anyOf[0]." // conclusion is the object or null
	want := map[string]int64{
		c + "summary.minLength":                1,
		c + "summary.maxLength":                maxSummaryField,
		c + "root_cause.minLength":             1,
		c + "root_cause.maxLength":             maxSummaryField,
		"analysis.maxItems":                    maxAnalysis,
		"analysis[].claim.minLength":           1,
		"analysis[].claim.maxLength":           maxClaim,
		"analysis[].scope.maxLength":           maxScope,
		"analysis[].tool_call_ids.minItems":    1,
		"analysis[].tool_call_ids.maxItems":    maxCitedIDs,
		"action_plan.maxItems":                 maxActions,
		"action_plan[].step.minLength":         1,
		"action_plan[].step.maxLength":         maxStep,
		"recommendations.maxItems":             maxListLen,
		"recommendations[].minLength":          1,
		"recommendations[].maxLength":          maxListItem,
		"limitations.scope.maxLength":          maxLimitScope,
		"limitations.missing_info.maxItems":    maxListLen,
		"limitations.missing_info[].minLength": 1,
		"limitations.missing_info[].maxLength": maxListItem,
	}
	if err := schema.CheckBounds(DraftSchema(), want); err != nil {
		t.Fatal(err)
	}
}
