package harness

import (
	"encoding/json"
	"slices"
	"testing"
)

// The envelope wrapped around every evidence tool's schema lists exactly
// the evaluations decodeEnvelope admits, and requires what it requires.
func TestEnvelopeSchemaMatchesDecoder(t *testing.T) {
	raw, err := envelopeSchema(json.RawMessage(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	type obj struct {
		Required   []string        `json:"required"`
		Properties map[string]*obj `json:"properties"`
		Enum       []string        `json:"enum"`
	}
	var s obj
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	prev := s.Properties["previous_observation"]
	if !slices.Equal(s.Required, []string{"input"}) || prev == nil || !slices.Equal(prev.Required, []string{"tool_call_id", "evaluation"}) {
		t.Fatalf("envelope schema %s", raw)
	}
	enum := prev.Properties["evaluation"].Enum
	if len(enum) == 0 {
		t.Fatalf("evaluation has no enum: %s", raw)
	}
	for _, ev := range []string{string(Gained), string(NoGain), "MAYBE", "gained", "NO GAIN", ""} {
		_, _, err := decodeEnvelope([]byte(`{"previous_observation":{"tool_call_id":"call_1","evaluation":"` + ev + `"},"input":{}}`))
		if listed := slices.Contains(enum, ev); listed != (err == nil) {
			t.Errorf("evaluation %q: in the schema enum %v, admitted by decodeEnvelope %v (%v)", ev, listed, err == nil, err)
		}
	}
}

// read_skill's schema names exactly the member readSkill decodes.
func TestReadSkillSchema(t *testing.T) {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(readSkillDefinition().Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Required, []string{"name"}) || len(s.Properties) != 1 || s.Properties["name"] == nil || s.Additional == nil || *s.Additional {
		t.Fatalf("read_skill schema %s", readSkillDefinition().Parameters)
	}
}
