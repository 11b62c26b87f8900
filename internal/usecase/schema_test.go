package usecase

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/prompts"
)

// The knowledge answer's schema (Ollama `format` and the prompt) states
// exactly the bounds ParseKnowledgeAnswer enforces, and the prompts' prose
// repeats the same counts: a tag or a constant edited alone fails here.
func TestKnowledgeAnswerSchemaBounds(t *testing.T) {
	want := map[string]int64{
		"items.minItems":           1,
		"items.maxItems":           maxKnowledgeItems,
		"items[].text.minLength":   1,
		"items[].text.maxLength":   maxKnowledgeItemBytes,
		"items[].doc_ids.minItems": 1,
		"items[].doc_ids.maxItems": maxKnowledgeDocIDs,
		"limitations.maxItems":     maxKnowledgeLimitations,
		"limitations[].maxLength":  maxLimitationBytes,
	}
	if err := schema.CheckBounds(KnowledgeAnswerSchema(), want); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, text, items, limits string }{
		{"KnowledgeAnswerEN", prompts.KnowledgeAnswerEN, "Give 1 to %d items", "(at most %d)"},
		{"KnowledgeAnswerZH", prompts.KnowledgeAnswerZH, "给出 1 到 %d 条", "（最多 %d 条）"},
	} {
		for _, s := range []string{fmt.Sprintf(p.items, maxKnowledgeItems), fmt.Sprintf(p.limits, maxKnowledgeLimitations)} {
			if !strings.Contains(p.text, s) {
				t.Errorf("%s does not say %q", p.name, s)
			}
		}
	}
}

// The router's schema lists exactly the intents ParseRoute admits.
func TestRouterSchemaIntents(t *testing.T) {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(RouterSchema(), &s); err != nil {
		t.Fatal(err)
	}
	enum := s.Properties["intent"].Enum
	if len(s.Properties) != 1 || len(enum) == 0 || !slices.Equal(s.Required, []string{"intent"}) {
		t.Fatalf("router schema %s", RouterSchema())
	}
	for _, intent := range []string{"SYSTEM_CHAT", "KNOWLEDGE_QUERY", "DIAGNOSIS", "CHAT", "UNKNOWN", "diagnosis", ""} {
		_, err := ParseRoute(`{"intent":"` + intent + `"}`)
		if listed := slices.Contains(enum, intent); listed != (err == nil) {
			t.Errorf("intent %q: in the schema enum %v, admitted by ParseRoute %v (%v)", intent, listed, err == nil, err)
		}
	}
}
