// Package schema generates the JSON Schemas the model receives (tool inputs,
// structured answers) from the Go structs the parsers decode into, so a
// member's type, bounds, enum and description are written once, in struct
// tags next to the field, instead of in a hand-written JSON string.
//
// Tags follow github.com/invopop/jsonschema: `jsonschema:"required,
// minLength=1,maxLength=512,enum=A,enum=B"` and `jsonschema_description:"…"`
// (the separate tag lets a description contain commas). Only members tagged
// required are required; every object refuses additional properties; the
// result has no $schema, $id or $defs.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// Reflect returns the schema of v's struct type for the caller to complete
// with what only the running configuration knows (an enum of configured
// names); Marshal then encodes it.
func Reflect(v any) *jsonschema.Schema {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, RequiredFromJSONSchemaTags: true}
	s := r.Reflect(v)
	s.Version, s.ID = "", ""
	return s
}

// Marshal encodes a schema built by Reflect. A schema of plain structs
// always encodes, so a failure is a programming error and panics, the way
// regexp.MustCompile does.
func Marshal(s *jsonschema.Schema) json.RawMessage {
	out, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("encode JSON schema: %v", err))
	}
	return out
}

// Of is the schema of v's struct type, encoded: Marshal(Reflect(v)).
func Of(v any) json.RawMessage { return Marshal(Reflect(v)) }

// boundKeywords are the numeric keywords Bounds collects: the ones that
// repeat a limit the Go validation code enforces.
var boundKeywords = [...]string{"minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "default"}

// Bounds walks a JSON schema and returns every numeric bound and default it
// states, keyed by where it is: "top_k.maximum", "items[].text.maxLength",
// "limitations[].maxLength" (the array's items), "maxItems" for the root.
// Tests compare the result with the Go constants the parsers use, so a
// schema cannot drift from its validation.
func Bounds(raw json.RawMessage) (map[string]int64, error) {
	var node map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&node); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	out := map[string]int64{}
	if err := walk(node, "", out); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckBounds fails unless the schema states exactly the bounds of want
// (see Bounds for the keys): each difference is named, with the schema's
// value and the Go constant's, so a drift test says what to fix.
func CheckBounds(raw json.RawMessage, want map[string]int64) error {
	got, err := Bounds(raw)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(got)+len(want))
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var diffs []string
	for _, k := range keys {
		g, inSchema := got[k]
		w, inGo := want[k]
		switch {
		case !inGo:
			diffs = append(diffs, fmt.Sprintf("%s: the schema states %d, no Go bound is expected", k, g))
		case !inSchema:
			diffs = append(diffs, fmt.Sprintf("%s: the schema lacks it, the Go bound is %d", k, w))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s: the schema states %d, the Go bound is %d", k, g, w))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("schema bounds drift from the Go constants: %s", strings.Join(diffs, "; "))
	}
	return nil
}

func walk(node map[string]any, path string, out map[string]int64) error {
	for _, k := range boundKeywords {
		v, ok := node[k]
		if !ok {
			continue
		}
		n, ok := v.(json.Number)
		if !ok {
			continue // a non-numeric default (a string) is no bound
		}
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %s %s is not an integer", where(path), k, n)
		}
		out[join(path, k)] = i
	}
	if props, ok := node["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			child, ok := props[name].(map[string]any)
			if !ok {
				return fmt.Errorf("%s: property %q is not a schema object", where(path), name)
			}
			if err := walk(child, join(path, name), out); err != nil {
				return err
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		if err := walk(items, path+"[]", out); err != nil {
			return err
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		subs, _ := node[k].([]any)
		for i, sub := range subs {
			child, ok := sub.(map[string]any)
			if !ok {
				continue
			}
			if err := walk(child, join(path, fmt.Sprintf("%s[%d]", k, i)), out); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func where(path string) string {
	if path == "" {
		return "schema root"
	}
	return path
}
