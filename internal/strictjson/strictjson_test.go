package strictjson

import (
	"errors"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

func TestDecode(t *testing.T) {
	type obj struct {
		A *string `json:"a"`
		B *int    `json:"b"`
	}
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"object", `{"a":"x","b":1}`, true},
		{"whitespace around", "\n  {\"a\":\"x\"}\n", true},
		{"empty", "", false},
		{"blank", "  \n", false},
		{"fenced", "```json\n{\"a\":\"x\"}\n```", false},
		{"prefixed", `Answer: {"a":"x"}`, false},
		{"suffixed", `{"a":"x"} thanks`, false},
		{"two objects", `{"a":"x"}{"a":"y"}`, false},
		{"array", `[{"a":"x"}]`, false},
		{"duplicate", `{"a":"x","a":"y"}`, false},
		{"wrong case", `{"A":"x"}`, false},
		{"unknown", `{"a":"x","c":2}`, false},
		{"wrong type", `{"b":"1"}`, false},
		{"invalid utf8", "{\"a\":\"\xff\"}", false},
		{"oversize", `{"a":"` + string(make([]byte, 100)) + `"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o obj
			err := Decode(tc.text, 64, &o)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	var o obj
	if err := Decode(`"a"`, 64, &o); !errors.Is(err, ErrNotOneObject) {
		t.Fatalf("err = %v", err)
	}
}

// The size limit refuses valid JSON one byte over it and accepts it exactly
// at it: the only reason for the refusal is the size.
func TestDecodeSizeLimit(t *testing.T) {
	const limit = 64
	at := `{"a":"` + strings.Repeat("x", limit-len(`{"a":""}`)) + `"}`
	over := `{"a":"` + strings.Repeat("x", limit+1-len(`{"a":""}`)) + `"}`
	if len(at) != limit || len(over) != limit+1 {
		t.Fatalf("fixture sizes %d, %d", len(at), len(over))
	}
	var o struct {
		A *string `json:"a"`
	}
	if err := Decode(at, limit, &o); err != nil || o.A == nil {
		t.Fatalf("valid JSON exactly at the limit: err = %v", err)
	}
	err := Decode(over, limit, &o)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("valid JSON one byte over the limit: err = %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "65 bytes exceed the limit of 64") {
		t.Fatalf("message %q does not name the size and the limit", err)
	}
	reliability.Record(t, reliability.SectionMutation, "strict decoder size limit (valid JSON at and one past the limit)", map[string]any{"test": t.Name()})
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"a":"x","b":1}`)
	f.Add("```json\n{}\n```")
	f.Fuzz(func(t *testing.T, text string) {
		var o struct {
			A *string `json:"a"`
		}
		if Decode(text, 1<<16, &o) == nil && (len(text) == 0) {
			t.Fatal("accepted empty text")
		}
	})
}
