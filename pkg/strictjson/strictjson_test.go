package strictjson

import (
	"errors"
	"testing"
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
