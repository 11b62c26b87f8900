package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/superbiz/superbiz/pkg/tools"
)

// isSourceName reports whether name is what a log source or database may be
// called (the model writes it in tool inputs, so it stays short and plain):
// 1-64 ASCII letters, digits, '_', '.' or '-', starting with a letter or
// digit. A loop, not a regular expression compiled at start-up.
func isSourceName(name string) bool {
	if name == "" || len(name) > 64 || !isAlnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// isEnvVarName reports whether name is a POSIX environment variable name of
// at most 128 bytes: ASCII letters, digits and '_', not starting with a digit.
func isEnvVarName(name string) bool {
	if name == "" || len(name) > 128 || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// isAlnum is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// Validate checks every value against its enum or range and the cross-field
// rules, naming the key and where the value came from (file, flag or
// environment). Table by table in declaration order, the tags' ranges and
// enums come first, then config's own rules, then the rules of the parts
// the configuration was loaded with (LoadOptions.Parts, Defaults). Load
// calls it; a program calls it on a configuration it built itself.
func (c *Config) Validate() error {
	v := &Checker{c: c}
	for _, s := range c.allTables() {
		fv := s.v
		switch {
		case isTable(s.typ):
			v.checkFields(s.key, fv, nil)
		case s.typ.Kind() == reflect.Slice && isTable(s.typ.Elem()):
			seen := map[string]int{}
			for i := range fv.Len() {
				prefix := fmt.Sprintf("%s[%d]", s.key, i)
				v.checkFields(prefix, fv.Index(i), nil)
				if name, ok := nameOf(fv.Index(i)); ok {
					v.Name(prefix+".name", i, name, seen, s.key)
				}
			}
		}
		for _, p := range c.partsOf(s.key) {
			if p.Check != nil {
				p.Check(c, v)
			}
		}
	}
	if len(v.probs) == 0 {
		return nil
	}
	return &Error{File: c.File, Problems: v.probs}
}

// nameOf is the name key of an entry of an array of tables: the name the
// model uses in tool inputs, unique in its array (Checker.Name).
func nameOf(entry reflect.Value) (string, bool) {
	for _, s := range specsOf(entry.Type()) {
		if s.key == "name" && s.typ.Kind() == reflect.String {
			return entry.FieldByIndex(s.index).String(), true
		}
	}
	return "", false
}

// partsOf lists the parts of the table key: config's own first, then the
// integrations' in the order given.
func (c *Config) partsOf(key string) []Part {
	var out []Part
	for _, p := range slices.Concat(ownParts(), c.parts) {
		if p.Table == key {
			out = append(out, p)
		}
	}
	return out
}

// ownParts are the tables no integration owns: the run store, the [model]
// keys every provider shares (each provider's own rules and summary line
// are its part), the budget and the limits.
func ownParts() []Part {
	return []Part{
		{Table: "db", Check: checkDB, Summary: func(c *Config) []string { return []string{"run store: " + c.DBPath + c.from("db")} }},
		{Table: "model", Check: checkModel},
		{Table: "budget", Summary: func(c *Config) []string { return []string{"budget: " + c.pairs("budget", reflect.ValueOf(c.Budget))} }},
		{Table: "limits", Check: checkLimits, Summary: func(c *Config) []string {
			return []string{"limits (bytes): " + c.pairs("limits", reflect.ValueOf(c.Limits))}
		}},
	}
}

// checkDB refuses an empty run store file given by a flag or variable.
func checkDB(c *Config, v *Checker) {
	if strings.TrimSpace(c.DBPath) == "" && c.origins["db"] != "" {
		v.Bad("db", `""`, "empty: name the run store file")
	}
}

// checkModel checks the [model] keys every provider shares and refuses a
// key set (in the file or by a flag) that has no meaning for the chosen
// provider.
func checkModel(c *Config, v *Checker) {
	m := c.Model
	if m.Host.IsZero() {
		v.Bad("model.host", `""`, `empty: write e.g. "http://127.0.0.1:11434"`)
	}
	if strings.TrimSpace(m.Name) == "" || strings.IndexFunc(m.Name, unicode.IsSpace) >= 0 {
		v.Bad("model.name", show(m.Name), `must be a model name without spaces, e.g. "qwen3:8b"`)
	}
	v.EnvName("model.api_key_env", m.APIKeyEnv)
	v.providerKeys(m)
}

// providerKeys reports a key tagged with one provider set (in the file or
// by a flag) while model.provider names another. An environment variable
// (OLLAMA_HOST, OPENAI_BASE_URL) is ambient, not a choice: the other
// provider's is ignored.
func (v *Checker) providerKeys(m Model) {
	specs := specsOf(reflect.TypeFor[Model]())
	for _, s := range specs {
		if s.key == "provider" && !slices.Contains(s.enum, m.Provider) {
			return // the enum's own problem is reported
		}
	}
	for _, s := range specs {
		key := "model." + s.key
		set := v.c.fileKeys[key] || strings.HasPrefix(v.c.origins[key], "--")
		if set && s.provider != "" && s.provider != m.Provider {
			v.Rule(key, fmt.Sprintf("has no meaning for model.provider = %q (it applies to %q only): remove it, or set model.provider = %q", m.Provider, s.provider, s.provider))
		}
	}
}

// checkLimits holds [limits] and the budget together.
func checkLimits(c *Config, v *Checker) {
	b, l := c.Budget, c.Limits
	if l.Input < l.Query {
		v.Rule("limits.input", fmt.Sprintf("%d is smaller than limits.query (%d): the input must hold at least the query; raise limits.input", l.Input, l.Query))
	}
	if l.Input < l.PreviousTurn {
		v.Rule("limits.input", fmt.Sprintf("%d is smaller than limits.previous_turn (%d): raise limits.input or lower limits.previous_turn", l.Input, l.PreviousTurn))
	}
	if b.MaxRunBytes < l.Input {
		v.Rule("budget.max_run_bytes", fmt.Sprintf("%d is smaller than limits.input (%d): a run could not even hold its input; raise budget.max_run_bytes", b.MaxRunBytes, l.Input))
	}
}

func (v *Checker) intRange(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.Bad(key, fmt.Sprint(n), fmt.Sprintf("must be between %d and %d", lo, hi))
	}
}

func (v *Checker) durRange(key string, d, lo, hi time.Duration) {
	if d < lo || d > hi {
		v.Bad(key, show(d), fmt.Sprintf("must be between %s and %s", FormatDuration(lo), FormatDuration(hi)))
	}
}

// FormatDuration prints a duration the way a person writes it in the file
// ("5m", "6h"); it is tools.FormatDuration, named here for the callers that
// show config values.
func FormatDuration(d time.Duration) string { return tools.FormatDuration(d) }
