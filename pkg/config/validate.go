package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Ranges every limit is checked against; wide enough for any real use,
// narrow enough to catch a typo (an extra zero, a unit mix-up).
const (
	minNumCtx, maxNumCtx         = 512, 1 << 20
	maxTemperature               = 2.0
	minRequestTimeout            = time.Second
	maxRequestTimeout            = time.Hour
	maxModelCalls                = 100
	maxToolCalls                 = 100
	minTokens, maxTokens         = 1024, 10_000_000
	minRunBytes, maxRunBytes     = 4096, 64 << 20
	minDeadline, maxDeadline     = time.Second, 24 * time.Hour
	maxNoGain                    = 100
	minLimit, maxLimit           = 256, 1 << 20
	minMaxWindow, maxMaxWindow   = time.Minute, 31 * 24 * time.Hour
	maxDBRows                    = 100
	minDBTimeout, maxDBTimeout   = 100 * time.Millisecond, 10 * time.Minute
	minDraftLimit, minObsLimit   = 1024, 1024
	minQueryLimit, minInputLimit = 256, 256
)

// sourceName is what a log source or database may be called: the model
// writes it in tool inputs, so it stays short and plain.
var sourceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Validate checks every value against its enum or range and the cross-field
// rules, naming the key and where the value came from (file, flag or
// environment). Load calls it; cmd calls it on a config it built itself.
func (c *Config) Validate() error {
	v := validator{c: c}
	m := c.Model
	if m.Host.IsZero() {
		v.bad("model.host", `""`, `empty: write e.g. "http://127.0.0.1:11434"`)
	}
	if strings.TrimSpace(m.Name) == "" || strings.IndexFunc(m.Name, unicode.IsSpace) >= 0 {
		v.bad("model.name", show(m.Name), `must be an Ollama model name without spaces, e.g. "qwen3:8b"`)
	}
	v.intRange("model.num_ctx", m.NumCtx, minNumCtx, maxNumCtx)
	if m.Temperature < 0 || m.Temperature > maxTemperature {
		v.bad("model.temperature", show(m.Temperature), "must be between 0 and 2 (0 gives reproducible diagnoses)")
	}
	v.durRange("model.request_timeout", m.RequestTimeout, minRequestTimeout, maxRequestTimeout)
	switch m.Language {
	case LanguageAuto, LanguageZH, LanguageEN:
	default:
		v.bad("model.language", show(string(m.Language)), "must be one of auto, zh, en")
	}

	b := c.Budget
	v.intRange("budget.max_model_calls", b.MaxModelCalls, 1, maxModelCalls)
	v.intRange("budget.max_tool_calls", b.MaxToolCalls, 1, maxToolCalls)
	v.intRange("budget.max_tokens", b.MaxTokens, minTokens, maxTokens)
	v.intRange("budget.max_run_bytes", b.MaxRunBytes, minRunBytes, maxRunBytes)
	v.durRange("budget.deadline", b.Deadline, minDeadline, maxDeadline)
	v.intRange("budget.max_no_gain", b.MaxNoGain, 1, maxNoGain)

	l := c.Limits
	v.intRange("limits.query", l.Query, minQueryLimit, maxLimit)
	v.intRange("limits.previous_turn", l.PreviousTurn, minLimit, maxLimit)
	v.intRange("limits.input", l.Input, minInputLimit, maxLimit)
	v.intRange("limits.draft", l.Draft, minDraftLimit, maxLimit)
	v.intRange("limits.observation", l.Observation, minObsLimit, maxLimit)
	if l.Input < l.Query {
		v.rule("limits.input", fmt.Sprintf("%d is smaller than limits.query (%d): the input must hold at least the query; raise limits.input", l.Input, l.Query))
	}
	if l.Input < l.PreviousTurn {
		v.rule("limits.input", fmt.Sprintf("%d is smaller than limits.previous_turn (%d): raise limits.input or lower limits.previous_turn", l.Input, l.PreviousTurn))
	}
	if b.MaxRunBytes < l.Input {
		v.rule("budget.max_run_bytes", fmt.Sprintf("%d is smaller than limits.input (%d): a run could not even hold its input; raise budget.max_run_bytes", b.MaxRunBytes, l.Input))
	}

	if strings.TrimSpace(c.DBPath) == "" && c.origins["db"] != "" {
		v.bad("db", `""`, "empty: name the run store file")
	}
	v.paths("knowledge.paths", c.Knowledge.Paths)
	v.paths("skills.paths", c.Skills.Paths)

	seen := map[string]int{}
	for i, s := range c.Logs {
		k := fmt.Sprintf("logs[%d]", i)
		v.name(k, i, s.Name, seen, "logs")
		if len(s.Paths) == 0 {
			v.bad(k+".paths", "[]", `must list at least one file or glob, e.g. ["/var/log/app/*.log"]`)
		}
		for j, p := range s.Paths {
			pk := fmt.Sprintf("%s.paths[%d]", k, j)
			if strings.TrimSpace(p) == "" {
				v.bad(pk, `""`, "empty: write a file path or glob")
				continue
			}
			if _, err := filepath.Match(p, ""); err != nil {
				v.bad(pk, show(p), "not a valid glob pattern (check the [ ] brackets)")
			}
		}
		switch s.Format {
		case FormatJSON, FormatLogfmt, FormatText, FormatAuto:
		default:
			v.bad(k+".format", show(string(s.Format)), "must be one of json, logfmt, text, auto")
		}
		if s.Location == nil {
			if _, err := loadLocation(s.Timezone); err != nil || s.Timezone == "" {
				v.bad(k+".timezone", show(s.Timezone), `not a known time zone, write an IANA name such as "Asia/Shanghai", "UTC" or "Local"`)
			}
		}
		v.durRange(k+".max_window", s.MaxWindow, minMaxWindow, maxMaxWindow)
	}

	seen = map[string]int{}
	for i, d := range c.Databases {
		k := fmt.Sprintf("databases[%d]", i)
		v.name(k, i, d.Name, seen, "databases")
		switch d.Driver {
		case DriverMySQL, DriverSQLite:
			if d.DSN.IsZero() {
				v.bad(k+".dsn", `""`, `empty: write e.g. "readonly:secret@tcp(127.0.0.1:3306)/orders" (mysql) or a file path (sqlite)`)
			} else if d.DSN.driver != d.Driver {
				v.rule(k+".dsn", fmt.Sprintf("was not checked for driver %q: build it with config.NewDSN", d.Driver))
			}
		case "":
			v.bad(k+".driver", `""`, "missing: must be one of mysql, sqlite")
		default:
			v.bad(k+".driver", show(string(d.Driver)), "must be one of mysql, sqlite")
		}
		v.intRange(k+".max_rows", d.MaxRows, 1, maxDBRows)
		v.durRange(k+".timeout", d.Timeout, minDBTimeout, maxDBTimeout)
	}
	if len(v.probs) == 0 {
		return nil
	}
	return &Error{File: c.File, Problems: v.probs}
}

// validator collects the problems of one Validate call.
type validator struct {
	c     *Config
	probs []string
}

// where names the value's source: the flag or variable that set it, or the
// key in the file.
func (v *validator) where(key, shown string) string {
	if o := v.c.origins[key]; o != "" {
		return fmt.Sprintf("%s = %s", o, shown)
	}
	if v.c.File != "" {
		return fmt.Sprintf("%s = %s in %s", key, shown, v.c.File)
	}
	return fmt.Sprintf("%s = %s", key, shown)
}

func (v *validator) bad(key, shown, problem string) {
	v.probs = append(v.probs, v.where(key, shown)+": "+problem)
}

// rule reports a cross-field problem about key, saying where key was set.
func (v *validator) rule(key, msg string) {
	switch o := v.c.origins[key]; {
	case o != "":
		v.probs = append(v.probs, fmt.Sprintf("%s (from %s): %s", key, o, msg))
	case v.c.File != "":
		v.probs = append(v.probs, fmt.Sprintf("%s in %s: %s", key, v.c.File, msg))
	default:
		v.probs = append(v.probs, fmt.Sprintf("%s: %s", key, msg))
	}
}

func (v *validator) intRange(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.bad(key, fmt.Sprint(n), fmt.Sprintf("must be between %d and %d", lo, hi))
	}
}

func (v *validator) durRange(key string, d, lo, hi time.Duration) {
	if d < lo || d > hi {
		v.bad(key, show(d), fmt.Sprintf("must be between %s and %s", fmtDur(lo), fmtDur(hi)))
	}
}

func (v *validator) paths(key string, ps []string) {
	for i, p := range ps {
		if strings.TrimSpace(p) == "" {
			v.bad(fmt.Sprintf("%s[%d]", key, i), `""`, "empty: write a directory path or remove the entry")
		}
	}
}

// name checks a source name's shape and uniqueness within its list.
func (v *validator) name(key string, idx int, name string, seen map[string]int, list string) {
	if !sourceName.MatchString(name) {
		if name == "" {
			v.bad(key+".name", `""`, "missing: every entry needs a name the model can use, e.g. \"app\"")
		} else {
			v.bad(key+".name", show(name), "must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
		}
		return
	}
	if first, dup := seen[name]; dup {
		v.bad(key+".name", show(name), fmt.Sprintf("duplicate: %s[%d] already uses this name; names in [[%s]] must be unique", list, first, list))
		return
	}
	seen[name] = idx
}

// fmtDur prints a duration the way a person writes it in the file ("5m", "6h", "100ms").
func fmtDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
