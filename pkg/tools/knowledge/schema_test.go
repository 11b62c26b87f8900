package knowledge

import (
	"testing"

	"github.com/superbiz/superbiz/pkg/schema"
)

// The schema the model receives states exactly the bounds ParseInput
// enforces: a tag edited without its constant (or the reverse) fails here.
func TestInputSchemaBounds(t *testing.T) {
	want := map[string]int64{
		"query.minLength": 1,
		"query.maxLength": MaxQueryBytes,
		"top_k.minimum":   1,
		"top_k.maximum":   MaxTopK,
		"top_k.default":   DefaultTopK,
	}
	if err := schema.CheckBounds(New(nil).Definition().Parameters, want); err != nil {
		t.Fatal(err)
	}
}
