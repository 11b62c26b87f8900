package release

import (
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
)

// VerdictSchema (the guard prompt's schema and Ollama `format`) states
// exactly the bounds ParseVerdict enforces.
func TestVerdictSchemaBounds(t *testing.T) {
	want := map[string]int64{
		"reasons.maxItems":    maxReasons,
		"reasons[].minLength": 1,
		"reasons[].maxLength": maxReasonBytes,
	}
	if err := schema.CheckBounds(VerdictSchema(), want); err != nil {
		t.Fatal(err)
	}
}
