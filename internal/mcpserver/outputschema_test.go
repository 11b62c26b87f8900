package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/superbiz/superbiz/internal/usecase"
)

// diagnose's structured result validates against the output schema it is
// declared with, whichever members are null (a client such as the MCP
// Inspector refuses a result that does not: "data/note must be string").
func TestDiagnoseResultMatchesItsSchema(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal(nullableSchema(diagnoseOutputSchema()), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	note := "scripted demo transcript"
	for name, out := range map[string]usecase.Output{"all null": {}, "with a note": {Note: &note}} {
		raw, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		var instance any
		if err := json.Unmarshal(raw, &instance); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(instance); err != nil {
			t.Errorf("%s: %s does not validate against diagnose's output schema: %v", name, raw, err)
		}
	}
}
