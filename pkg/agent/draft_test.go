package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const validDraft = `{"conclusion":{"summary":"s","root_cause":"r","confidence":"HIGH"},"analysis":[{"type":"FINDING","claim":"c","tool_call_ids":["call_1"]},{"type":"NEGATIVE_OBSERVATION","claim":"none","scope":"logs 14:00-15:00","tool_call_ids":["call_2"]}],"action_plan":[{"priority":"P1","step":"st","risk":"LOW"}],"recommendations":["r1"],"limitations":{"scope":"sc","missing_info":["m"]}}`

func TestParseDraftAccepts(t *testing.T) {
	for name, text := range map[string]string{
		"full":                   validDraft,
		"null conclusion":        noConclusionDraft("call_1"),
		"surrounding whitespace": "\n  " + validDraft + "\n",
		"finding without scope":  conclusionDraft("call_9"),
	} {
		t.Run(name, func(t *testing.T) {
			d, err := ParseDraft(text, 16384)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.CitedIDs()) == 0 && name != "null conclusion" {
				t.Fatal("no cited IDs")
			}
		})
	}
	d, _ := ParseDraft(validDraft, 16384)
	if got := d.CitedIDs(); len(got) != 2 || got[0] != "call_1" || got[1] != "call_2" {
		t.Fatalf("cited = %v", got)
	}
}

func TestParseDraftRejects(t *testing.T) {
	replace := func(old, repl string) string {
		if !strings.Contains(validDraft, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(validDraft, old, repl, 1)
	}
	cases := map[string]string{
		"empty":              "",
		"blank":              "  \n ",
		"fenced":             "```json\n" + validDraft + "\n```",
		"prefixed":           "Draft: " + validDraft,
		"suffixed":           validDraft + " done",
		"trailing object":    validDraft + validDraft,
		"array":              "[" + validDraft + "]",
		"duplicate key":      replace(`"recommendations":["r1"]`, `"recommendations":["r1"],"recommendations":[]`),
		"wrong case key":     replace(`"conclusion":`, `"Conclusion":`),
		"unknown field":      replace(`"recommendations"`, `"extra":1,"recommendations"`),
		"unknown nested":     replace(`"confidence":"HIGH"`, `"confidence":"HIGH","why":"x"`),
		"wrong enum":         replace(`"confidence":"HIGH"`, `"confidence":"CERTAIN"`),
		"wrong type enum":    replace(`"type":"FINDING"`, `"type":"finding"`),
		"wrong priority":     replace(`"priority":"P1"`, `"priority":"P9"`),
		"wrong type":         replace(`"recommendations":["r1"]`, `"recommendations":"r1"`),
		"missing field":      replace(`"recommendations":["r1"],`, ``),
		"missing conclusion": replace(`"conclusion":{"summary":"s","root_cause":"r","confidence":"HIGH"},`, ``),
		"conclusion string":  replace(`{"summary":"s","root_cause":"r","confidence":"HIGH"}`, `"pool"`),
		"blank claim":        replace(`"claim":"c"`, `"claim":" "`),
		"no citations":       replace(`"tool_call_ids":["call_1"]`, `"tool_call_ids":[]`),
		"negative no scope":  replace(`"scope":"logs 14:00-15:00",`, ``),
		"missing ids":        replace(`,"tool_call_ids":["call_1"]`, ``),
		"null list":          replace(`"recommendations":["r1"]`, `"recommendations":null`),
		"oversize claim":     replace(`"claim":"c"`, `"claim":"`+strings.Repeat("x", 700)+`"`),
		"invalid utf8":       replace(`"claim":"c"`, "\"claim\":\"\xff\""),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseDraft(text, 16384); !errors.Is(err, ErrInvalidDraft) {
				t.Fatalf("accepted or wrong error: %v", err)
			}
		})
	}
	if _, err := ParseDraft(validDraft, len(validDraft)-1); !errors.Is(err, ErrInvalidDraft) {
		t.Fatalf("oversize draft accepted: %v", err)
	}
}

func TestDraftSchemaShape(t *testing.T) {
	var s struct {
		Required             []string                   `json:"required"`
		AdditionalProperties bool                       `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(DraftSchema(), &s); err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Required, ",") != "conclusion,analysis,action_plan,recommendations,limitations" || s.AdditionalProperties {
		t.Fatalf("schema = %+v", s)
	}
	if !strings.Contains(string(s.Properties["conclusion"]), `{"type":"null"}`) {
		t.Fatalf("conclusion is not nullable: %s", s.Properties["conclusion"])
	}
}

// FuzzParseDraft: the parser never panics, and whatever it accepts re-encodes
// to a draft it accepts again with the same citations.
func FuzzParseDraft(f *testing.F) {
	f.Add(validDraft)
	f.Add(noConclusionDraft())
	f.Add("```json\n{}\n```")
	f.Add(`{"conclusion":null}`)
	f.Fuzz(func(t *testing.T, text string) {
		d, err := ParseDraft(text, 16384)
		if err != nil {
			return
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := ParseDraft(string(b), 1<<20)
		if err != nil {
			t.Fatalf("re-encoded draft rejected: %v\n%s", err, b)
		}
		if strings.Join(d.CitedIDs(), ",") != strings.Join(d2.CitedIDs(), ",") {
			t.Fatal("citations changed")
		}
	})
}
