package specref

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/model"
)

// inputSection names the generated input table of tool in SPEC.md.
func inputSection(tool string) string { return "tool-input:" + tool }

// ToolInputs are the input tables of every registered source's tool, in
// registry order: the schema the model receives (declared with every
// source configured by its Example, connecting to nothing) gives the
// members, their order, type and whether each is required; the source's
// InputDocs give the rest of each row. A tool without InputDocs, a member
// without its text, a text naming no member, or a bound, default or enum
// value the schema states and the text does not, is an error.
func ToolInputs() ([]Section, error) {
	defs, err := declared()
	if err != nil {
		return nil, err
	}
	var (
		out      []Section
		problems []string
	)
	for _, s := range registry.Sources() {
		if s.Tool() == "" {
			continue
		}
		i := slices.IndexFunc(defs, func(d model.Tool) bool { return d.Name == s.Tool() })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("%s: the sources' examples declare no such tool", s.Tool()))
			continue
		}
		d, ok := s.(integration.InputDocumented)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: source %s has no InputDocs (integration.InputDocumented)", s.Tool(), s.Name()))
			continue
		}
		body, probs := inputTable(defs[i], d.InputDocs())
		problems = append(problems, probs...)
		out = append(out, Section{Name: inputSection(s.Tool()), Body: body})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("the tools' input tables: %s", strings.Join(problems, "; "))
	}
	return out, nil
}

// declared are the tool definitions of a configuration made of every
// source's Example (registry.Declared: nothing is opened).
func declared() ([]model.Tool, error) {
	dir, err := os.MkdirTemp("", "specref-")
	if err != nil {
		return nil, fmt.Errorf("specref: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	file := filepath.Join(dir, "superbiz.toml")
	if err := os.WriteFile(file, []byte(registry.Example()), 0o600); err != nil {
		return nil, fmt.Errorf("specref: %w", err)
	}
	env := map[string]string{"HOME": dir, "XDG_DATA_HOME": dir, "XDG_CONFIG_HOME": dir}
	getenv := func(k string) string { return env[k] }
	cfg, err := registry.Load(config.LoadOptions{ConfigPath: file, WorkDir: dir, Getenv: getenv})
	if err != nil {
		return nil, fmt.Errorf("specref: load the sources' examples: %w", err)
	}
	defs, err := registry.Declared(context.Background(), cfg, integration.Env{Getenv: getenv, Warn: func(string) {}})
	if err != nil {
		return nil, fmt.Errorf("specref: declare the sources' tools: %w", err)
	}
	return defs, nil
}

// property is what an input table says of one schema member.
type property struct {
	Type      string          `json:"type"`
	Enum      []string        `json:"enum"`
	MinLength *int64          `json:"minLength"`
	MaxLength *int64          `json:"maxLength"`
	Minimum   *int64          `json:"minimum"`
	Maximum   *int64          `json:"maximum"`
	Default   json.RawMessage `json:"default"`
}

// inputTable renders def's input members as SPEC's table, with docs'
// texts; the problems say what is missing.
func inputTable(def model.Tool, docs map[string]string) (string, []string) {
	// registry.Declared gives a tool's own schema, the input the harness's
	// envelope holds (properties.input of what the model receives).
	type schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	var in schema
	if err := json.Unmarshal(def.Parameters, &in); err != nil || in.Properties == nil {
		return "", []string{fmt.Sprintf("%s: its parameters are no object schema (%v)", def.Name, err)}
	}
	names, props, err := orderedProperties(in.Properties)
	if err != nil {
		return "", []string{fmt.Sprintf("%s: %v", def.Name, err)}
	}
	rowOf := map[string]string{} // member -> its docs key
	for key := range docs {
		for m := range strings.SplitSeq(key, ",") {
			m = strings.TrimSpace(m)
			if !slices.Contains(names, m) {
				return "", []string{fmt.Sprintf("%s: InputDocs name %q, which its schema has not", def.Name, m)}
			}
			rowOf[m] = key
		}
	}
	var (
		b        strings.Builder
		problems []string
		done     = map[string]bool{}
	)
	b.WriteString("| input | type | rule |\n| --- | --- | --- |\n")
	for _, name := range names {
		key, ok := rowOf[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s.%s has no InputDocs text", def.Name, name))
			continue
		}
		if done[key] {
			continue
		}
		done[key] = true
		members := strings.Split(key, ",")
		var cells []string
		for i, m := range members {
			members[i] = strings.TrimSpace(m)
			cells = append(cells, "`"+members[i]+"`")
		}
		p, text := props[name], docs[key]
		for _, m := range members {
			if props[m].Type != p.Type {
				problems = append(problems, fmt.Sprintf("%s: %s and %s share a row but not a type", def.Name, name, m))
			}
			problems = append(problems, stated(def.Name, m, props[m], text)...)
		}
		rule := text
		if slices.Contains(in.Required, name) {
			rule = strings.TrimSuffix("required; "+text, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(cells, ", "), p.Type, rule)
	}
	return b.String(), problems
}

// stated checks that text states every bound, default and fixed enum value
// of member's schema (a configured enum, of source names, is said to be
// "configured").
func stated(tool, member string, p property, text string) []string {
	var probs []string
	var bounds []string
	for _, n := range []*int64{p.MinLength, p.MaxLength, p.Minimum, p.Maximum} {
		if n != nil {
			bounds = append(bounds, fmt.Sprint(*n))
		}
	}
	if p.Default != nil {
		bounds = append(bounds, string(p.Default))
	}
	for _, n := range bounds {
		if !regexp.MustCompile(`(^|[^0-9])` + regexp.QuoteMeta(n) + `([^0-9]|$)`).MatchString(text) {
			probs = append(probs, fmt.Sprintf("%s.%s: the schema states %s, its InputDocs text %q does not", tool, member, n, text))
		}
	}
	for _, v := range p.Enum {
		if !strings.Contains(text, "`"+v+"`") && !strings.Contains(text, "configured") {
			probs = append(probs, fmt.Sprintf("%s.%s: enum value %q is not in its InputDocs text %q", tool, member, v, text))
		}
	}
	return probs
}

// orderedProperties decodes a schema's properties keeping their order.
func orderedProperties(raw json.RawMessage) ([]string, map[string]property, error) {
	props := map[string]property{}
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
		name, ok := tok.(string)
		if !ok {
			return nil, nil, errors.New("a schema property without a name")
		}
		names = append(names, name)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, err
		}
	}
	return names, props, nil
}
