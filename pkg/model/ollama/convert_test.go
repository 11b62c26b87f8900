package ollama

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzArguments checks the two conversions of tool-call arguments: any JSON
// object survives the trip through Ollama's ordered arguments with the same
// value and the same top-level member order, and anything else is refused
// with an error, never a panic.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"z":1,"a":{"y":2,"b":[1,2.5,null]}}`, `[1]`, `"x"`, `{"a":`, `{"a":1e400}`, ` {"k":"\u00e9<&>"} `, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		args, err := ArgumentsToAPI(raw)
		trimmed := bytes.TrimSpace(raw)
		isObject := len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed)
		if err != nil {
			if isObject && utf8.Valid(trimmed) {
				// The only valid UTF-8 objects refused are those Go cannot
				// hold (e.g. 1e400); invalid UTF-8 is refused by design.
				var v map[string]any
				if json.Unmarshal(trimmed, &v) == nil {
					t.Fatalf("valid object %q refused: %v", raw, err)
				}
			}
			return
		}
		if len(trimmed) > 0 && !isObject {
			t.Fatalf("non-object %q accepted", raw)
		}
		back, err := ArgumentsFromAPI(args)
		if err != nil {
			t.Fatalf("encode %q: %v", raw, err)
		}
		var want, got map[string]any
		if len(trimmed) == 0 {
			trimmed = []byte("{}")
		}
		if err := json.Unmarshal(trimmed, &want); err != nil {
			return
		}
		if err := json.Unmarshal(back, &got); err != nil {
			t.Fatalf("round trip of %q produced invalid JSON %q: %v", raw, back, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("round trip changed %q into %q", raw, back)
		}
		var keys []string
		for k := range args.All() {
			keys = append(keys, k)
		}
		if !reflect.DeepEqual(keys, topLevelKeys(t, back)) {
			t.Fatalf("member order changed: %q → %q", raw, back)
		}
	})
}

// topLevelKeys lists an object's member names in document order, first
// occurrence only.
func topLevelKeys(t *testing.T, obj []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
		if !seen[k] {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	return keys
}

func TestArgumentsOrder(t *testing.T) {
	in := `{"sql":"SELECT 1","max_rows":5,"database":"orders"}`
	args, err := ArgumentsToAPI(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := ArgumentsFromAPI(args)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("got %s, want %s", out, in)
	}
}
