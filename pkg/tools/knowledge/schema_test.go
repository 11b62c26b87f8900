package knowledge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
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

// The query's description repeats its byte bound for the model: it must
// say the bound ParseInput enforces.
func TestInputSchemaDescriptions(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(New(nil).Definition().Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if d, want := s.Properties["query"].Description, fmt.Sprintf("(1-%d bytes)", MaxQueryBytes); !strings.Contains(d, want) {
		t.Errorf("query description %q does not say %q", d, want)
	}
}
