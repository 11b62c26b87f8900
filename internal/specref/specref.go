// Package specref generates docs/SPEC.md's reference tables from the
// declarations they describe: the configuration keys (their tags and the
// Docs of config and of every registered integration's share), the exit
// codes (internal/exitcode) and each evidence tool's input table (its
// schema and its source's InputDocs). Each table sits between two markers in
// SPEC.md, <!-- generated:NAME --> and <!-- /generated:NAME -->; the
// package's test fails when SPEC.md differs and rewrites it under -update.
package specref

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/registry"
)

// Section is one generated table: its marker name and its Markdown.
type Section struct {
	Name string
	Body string
}

// Sections are every generated table, in the order SPEC.md holds them.
func Sections() ([]Section, error) {
	keys, err := Keys()
	if err != nil {
		return nil, err
	}
	inputs, err := ToolInputs()
	if err != nil {
		return nil, err
	}
	return append([]Section{{Name: "config-keys", Body: keys}, {Name: "exit-codes", Body: ExitCodes()}}, inputs...), nil
}

// Apply replaces each section's table in doc, between its markers; a
// marker missing from doc is an error naming it.
func Apply(doc []byte) ([]byte, error) {
	sections, err := Sections()
	if err != nil {
		return nil, err
	}
	for _, s := range sections {
		open, closing := []byte("<!-- generated:"+s.Name+" -->\n"), []byte("<!-- /generated:"+s.Name+" -->")
		i, j := bytes.Index(doc, open), bytes.Index(doc, closing)
		if i < 0 || j < i {
			return nil, fmt.Errorf("docs/SPEC.md has no %s…%s around the %s table", open[:len(open)-1], closing, s.Name)
		}
		doc = slices.Concat(doc[:i+len(open)], []byte(s.Body), doc[j:])
	}
	return doc, nil
}

// Keys is the table of every configuration key: its type, its default and
// what it accepts, from its tags and its Docs. A key without Docs, or
// documented twice or by a table that does not declare it, is an error.
func Keys() (string, error) {
	docs := map[string]config.KeyDoc{}
	var problems []string
	add := func(owner string, d map[string]config.KeyDoc) {
		for k, v := range d {
			if _, dup := docs[k]; dup {
				problems = append(problems, fmt.Sprintf("%s documents %s, documented already", owner, k))
			}
			docs[k] = v
		}
	}
	add("internal/config", config.OwnDocs())
	for _, p := range registry.Parts() {
		add("the share of ["+p.Table+"]", p.Docs)
	}
	var b strings.Builder
	b.WriteString("| key | type | default | accepted |\n| --- | --- | --- | --- |\n")
	declared := map[string]bool{}
	for _, s := range config.KeySpecs(registry.Parts()...) {
		declared[s.Key] = true
		d, ok := docs[s.Key]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s has no KeyDoc: add it to the Docs of its table's share (config.Part) or to config.OwnDocs", s.Key))
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Key, cmpOr(d.Type, typeOf(s.Type)), cmpOr(d.Default, defaultOf(s)), accepted(s, d))
	}
	for k := range docs {
		if !declared[k] {
			problems = append(problems, fmt.Sprintf("a KeyDoc names %s, which no table declares", k))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return "", fmt.Errorf("the configuration keys' reference: %s", strings.Join(problems, "; "))
	}
	return b.String(), nil
}

// typeOf names a Go type as the reference does.
func typeOf(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return "duration"
	case t == reflect.TypeFor[config.HostURL]():
		return "URL"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		return "integer"
	case t.Kind() == reflect.Float64:
		return "number"
	case t.Kind() == reflect.Slice:
		return "array of " + typeOf(t.Elem()) + "s"
	}
	return "string"
}

// defaultOf is the default cell: the tag's value, backticked unless it is
// a number or a boolean; none without one.
func defaultOf(s config.KeySpec) string {
	switch k := s.Type.Kind(); {
	case k == reflect.Slice && s.Default == "":
		return "`[]`"
	case k == reflect.Slice:
		var q []string
		for p := range strings.SplitSeq(s.Default, ",") {
			q = append(q, `"`+p+`"`)
		}
		return "`[" + strings.Join(q, ", ") + "]`"
	case !s.HasDefault:
		return "none"
	case k == reflect.Bool, k == reflect.Float64, (k == reflect.Int || k == reflect.Int64) && s.Type != reflect.TypeFor[time.Duration]():
		return s.Default
	}
	return "`" + s.Default + "`"
}

// accepted is the accepted cell: the provider the key is for, its range,
// then its prose.
func accepted(s config.KeySpec, d config.KeyDoc) string {
	var head []string
	if s.Provider != "" {
		head = append(head, s.Provider+" only")
	}
	if s.Min != "" {
		head = append(head, s.Min+" – "+s.Max)
	}
	out := strings.Join(head, "; ")
	switch {
	case d.Accepted == "":
	case s.Min != "":
		out += d.Accepted
	case out != "":
		out += "; " + d.Accepted
	default:
		out = d.Accepted
	}
	return out
}

// ExitCodes is the table of the process's exit codes (exitcode.Reference).
func ExitCodes() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n| --- | --- |\n")
	for _, c := range exitcode.Reference() {
		fmt.Fprintf(&b, "| `%d` | %s |\n", c.Code, c.Meaning)
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
