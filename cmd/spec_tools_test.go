package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/model"
)

// specProperty is the part of a generated input schema docs/SPEC.md's
// input tables describe.
type specProperty struct {
	Type      string          `json:"type"`
	Enum      []string        `json:"enum"`
	MinLength *int64          `json:"minLength"`
	MaxLength *int64          `json:"maxLength"`
	Minimum   *int64          `json:"minimum"`
	Maximum   *int64          `json:"maximum"`
	Default   json.RawMessage `json:"default"`
}

// Each evidence tool's input table in docs/SPEC.md lists exactly the
// members of the schema the model receives, in its order, with its type;
// a member is "required" in the table when the schema requires it, and every
// bound and default the schema states appears in the member's rule. The
// schemas are generated from the input structs and held to the Go
// constants by the tools' own tests, so the table cannot drift from either.
func TestSpecToolInputs(t *testing.T) {
	code, out, errOut := cli(t, diagnoseEnv(t), "tools", "list", "--demo", "-o", "json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("tools list: exit %d, stderr %q", code, errOut)
	}
	var defs []model.Tool
	if err := json.Unmarshal([]byte(out), &defs); err != nil {
		t.Fatal(err)
	}
	// the demo lacks some sources (metrics, PostgreSQL, Redis): their tools
	// come from every registered source configured by its example
	// (listing connects to none)
	file := filepath.Join(t.TempDir(), "superbiz.toml")
	if err := os.WriteFile(file, []byte(registry.Example()), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, diagnoseEnv(t), "tools", "list", "--config", file, "-o", "json")
	var more []model.Tool
	// (stderr may warn of the example's playbook folder, which is absent)
	if code != ExitOK || json.Unmarshal([]byte(out), &more) != nil {
		t.Fatalf("tools list of the sources' examples: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	for _, d := range more {
		if !slices.ContainsFunc(defs, func(x model.Tool) bool { return x.Name == d.Name }) {
			defs = append(defs, d)
		}
	}
	for _, s := range registry.Sources() {
		if s.Tool() != "" && !slices.ContainsFunc(defs, func(x model.Tool) bool { return x.Name == s.Tool() }) {
			t.Errorf("no configuration lists %s (source %s)", s.Tool(), s.Name())
		}
	}
	doc := readSpec(t)
	checked := 0
	for _, def := range defs {
		var env struct {
			Properties struct {
				Input *struct {
					Properties json.RawMessage `json:"properties"`
					Required   []string        `json:"required"`
				} `json:"input"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(def.Parameters, &env); err != nil {
			t.Fatalf("%s: %v", def.Name, err)
		}
		in := env.Properties.Input
		if in == nil {
			continue // read_skill: no envelope, described in prose
		}
		checked++
		names, props, err := orderedProperties(in.Properties)
		if err != nil {
			t.Fatalf("%s: %v", def.Name, err)
		}
		var documented []string
		rows := map[string][]string{}
		for _, row := range doc.section(t, def.Name) {
			if len(row) != 3 {
				t.Fatalf("%s: table row %q does not have 3 cells", def.Name, row)
			}
			for _, name := range backticked(row[0]) {
				documented = append(documented, name)
				rows[name] = row
			}
		}
		if !slices.Equal(documented, names) {
			t.Errorf("%s: docs/SPEC.md lists %q, the schema has %q", def.Name, documented, names)
			continue
		}
		for _, name := range names {
			p, typ, rule := props[name], rows[name][1], rows[name][2]
			if typ != p.Type {
				t.Errorf("%s.%s: docs/SPEC.md says %s, the schema %s", def.Name, name, typ, p.Type)
			}
			if documentedRequired, required := strings.HasPrefix(rule, "required"), slices.Contains(in.Required, name); documentedRequired != required {
				t.Errorf("%s.%s: required in docs/SPEC.md %v, in the schema %v", def.Name, name, documentedRequired, required)
			}
			var bounds []string
			for _, b := range []*int64{p.MinLength, p.MaxLength, p.Minimum, p.Maximum} {
				if b != nil {
					bounds = append(bounds, fmt.Sprint(*b))
				}
			}
			if p.Default != nil {
				bounds = append(bounds, string(p.Default))
			}
			for _, b := range bounds {
				if !regexp.MustCompile(`(^|[^0-9])` + regexp.QuoteMeta(b) + `([^0-9]|$)`).MatchString(rule) {
					t.Errorf("%s.%s: the schema states %s, docs/SPEC.md's rule %q does not", def.Name, name, b, rule)
				}
			}
			// a fixed enum is listed; a configured one (names) is said to be
			for _, v := range p.Enum {
				if !slices.Contains(backticked(rule), v) && !strings.Contains(rule, "configured") {
					t.Errorf("%s.%s: enum value %q is not in docs/SPEC.md's rule %q", def.Name, name, v, rule)
				}
			}
		}
	}
	if checked != 8 {
		t.Fatalf("checked %d evidence tools, want lookup_knowledge, query_logs, query_mysql, query_postgres, query_metrics, query_kubernetes, query_redis and build_timeline", checked)
	}
}

// orderedProperties decodes a schema's properties keeping their order.
func orderedProperties(raw json.RawMessage) ([]string, map[string]specProperty, error) {
	props := map[string]specProperty{}
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var names []string
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, err
		}
	}
	return names, props, nil
}
