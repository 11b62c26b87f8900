package schema

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

type item struct {
	Text string   `json:"text" jsonschema:"required,minLength=1,maxLength=100" jsonschema_description:"one sentence, with commas, kept whole"`
	Tags []string `json:"tags,omitempty" jsonschema:"maxItems=4,maxLength=20"`
}

type answer struct {
	Items []item `json:"items" jsonschema:"required,minItems=1,maxItems=6"`
	Level string `json:"level" jsonschema:"enum=LOW,enum=HIGH"`
	Count *int   `json:"count,omitempty" jsonschema:"minimum=1,maximum=50,default=20"`
}

func TestOf(t *testing.T) {
	raw := Of(answer{})
	for _, noise := range []string{`"$schema"`, `"$id"`, `"$defs"`, `"$ref"`} {
		if strings.Contains(string(raw), noise) {
			t.Errorf("schema has %s: %s", noise, raw)
		}
	}
	var s struct {
		Type       string          `json:"type"`
		Required   []string        `json:"required"`
		Additional *bool           `json:"additionalProperties"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	// only tagged members are required, whatever their json flags say
	if s.Type != "object" || len(s.Required) != 1 || s.Required[0] != "items" {
		t.Errorf("type %q required %q", s.Type, s.Required)
	}
	if s.Additional == nil || *s.Additional {
		t.Errorf("additionalProperties not false: %s", raw)
	}
	// properties keep the struct's field order: Ollama shows them in this order
	if i, j, k := strings.Index(string(s.Properties), `"items"`), strings.Index(string(s.Properties), `"level"`), strings.Index(string(s.Properties), `"count"`); i < 0 || !(i < j && j < k) {
		t.Errorf("property order: %s", s.Properties)
	}
	for _, want := range []string{
		`"description":"one sentence, with commas, kept whole"`,
		`"enum":["LOW","HIGH"]`,
		`"required":["text"]`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("schema lacks %s: %s", want, raw)
		}
	}
	if strings.Count(string(raw), `"additionalProperties":false`) != 2 {
		t.Errorf("nested objects must refuse additional properties too: %s", raw)
	}
}

func TestBounds(t *testing.T) {
	got, err := Bounds(Of(answer{}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"items.minItems":           1,
		"items.maxItems":           6,
		"items[].text.minLength":   1,
		"items[].text.maxLength":   100,
		"items[].tags.maxItems":    4,
		"items[].tags[].maxLength": 20,
		"count.minimum":            1,
		"count.maximum":            50,
		"count.default":            20,
	}
	if !maps.Equal(got, want) {
		t.Fatalf("bounds\n got %v\nwant %v", got, want)
	}
}

func TestBoundsRefusesBadSchemas(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"not JSON", `{"type":`, "decode schema"},
		{"fractional bound", `{"properties":{"n":{"type":"number","maximum":1.5}}}`, "n: maximum 1.5 is not an integer"},
		{"property not an object", `{"properties":{"n":true}}`, `property "n" is not a schema object`},
	} {
		_, err := Bounds(json.RawMessage(tc.raw))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestBoundsAnyOf(t *testing.T) {
	got, err := Bounds(json.RawMessage(`{"properties":{"c":{"anyOf":[{"properties":{"s":{"maxLength":600}}},{"type":"null"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"c.anyOf[0].s.maxLength": 600}; !maps.Equal(got, want) {
		t.Fatalf("bounds %v, want %v", got, want)
	}
}

func TestCheckBounds(t *testing.T) {
	raw := json.RawMessage(`{"properties":{"q":{"type":"string","minLength":1,"maxLength":512},"k":{"type":"integer","maximum":8}}}`)
	for _, tc := range []struct {
		name string
		want map[string]int64
		errs []string // substrings; none means no error
	}{
		{"equal", map[string]int64{"q.minLength": 1, "q.maxLength": 512, "k.maximum": 8}, nil},
		{"changed", map[string]int64{"q.minLength": 1, "q.maxLength": 256, "k.maximum": 8},
			[]string{"q.maxLength: the schema states 512, the Go bound is 256"}},
		{"unexpected and missing", map[string]int64{"q.minLength": 1, "q.maxLength": 512, "k.minimum": 1},
			[]string{"k.maximum: the schema states 8, no Go bound is expected", "k.minimum: the schema lacks it, the Go bound is 1"}},
	} {
		err := CheckBounds(raw, tc.want)
		if len(tc.errs) == 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, want := range tc.errs {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, want)
			}
		}
	}
}
