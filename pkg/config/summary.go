package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Summary returns one redacted line per part of the configuration, for
// `superbiz doctor` and debugging; it never contains a password.
func (c *Config) Summary() []string {
	file := c.File
	if file == "" {
		file = "defaults (no config file)"
	}
	lines := []string{
		"config: " + file,
		"run store: " + c.DBPath + c.from("db"),
		fmt.Sprintf("model: %s%s at %s%s (num_ctx %d, temperature %s, think %t, language %s, request_timeout %s)",
			c.Model.Name, c.from("model.name"), c.Model.Host.Redacted(), c.from("model.host"),
			c.Model.NumCtx, strconv.FormatFloat(c.Model.Temperature, 'g', -1, 64), c.Model.Think,
			c.Model.Language, FormatDuration(c.Model.RequestTimeout)),
		fmt.Sprintf("budget: max_model_calls %d%s, max_tool_calls %d%s, max_tokens %d%s, max_run_bytes %d, deadline %s%s, max_no_gain %d",
			c.Budget.MaxModelCalls, c.from("budget.max_model_calls"),
			c.Budget.MaxToolCalls, c.from("budget.max_tool_calls"),
			c.Budget.MaxTokens, c.from("budget.max_tokens"),
			c.Budget.MaxRunBytes,
			FormatDuration(c.Budget.Deadline), c.from("budget.deadline"),
			c.Budget.MaxNoGain),
		fmt.Sprintf("limits (bytes): query %d, previous_turn %d, input %d, draft %d, observation %d",
			c.Limits.Query, c.Limits.PreviousTurn, c.Limits.Input, c.Limits.Draft, c.Limits.Observation),
		"knowledge: " + listOrNone(c.Knowledge.Paths),
	}
	for _, s := range c.Logs {
		lines = append(lines, fmt.Sprintf("logs %s: %s (format %s, timezone %s, max_window %s)",
			s.Name, listOrNone(s.Paths), s.Format, s.Timezone, FormatDuration(s.MaxWindow)))
	}
	if len(c.Logs) == 0 {
		lines = append(lines, "logs: none configured")
	}
	for _, d := range c.Databases {
		lines = append(lines, fmt.Sprintf("database %s: %s %s (max_rows %d, timeout %s)",
			d.Name, d.Driver, d.DSN.Redacted(), d.MaxRows, FormatDuration(d.Timeout)))
	}
	if len(c.Databases) == 0 {
		lines = append(lines, "databases: none configured")
	}
	lines = append(lines, "skills: built-in"+extra(c.Skills.Paths))
	if !c.Now.IsZero() {
		lines = append(lines, "clock: fixed at "+c.Now.Format("2006-01-02T15:04:05Z07:00")+" ($"+EnvNow+")")
	}
	return lines
}

// String is the Summary on one line per part; it is what %v and %s print.
func (c Config) String() string { return strings.Join(c.Summary(), "\n") }

// GoString keeps %#v from walking the struct; it prints the redacted summary.
func (c Config) GoString() string { return "config.Config{" + strconv.Quote(c.String()) + "}" }

// from names a flag or variable that set key, for Summary lines.
func (c *Config) from(key string) string {
	if o := c.origins[key]; o != "" {
		return " (from " + o + ")"
	}
	return ""
}

func listOrNone(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, ", ")
}

func extra(ps []string) string {
	if len(ps) == 0 {
		return ""
	}
	return " + " + strings.Join(ps, ", ")
}

// MarshalJSON encodes the configuration with durations as text ("5m") and
// secrets redacted, identically under encoding/json and json/v2. The members
// and their order are the struct declarations' (appendJSON).
func (c Config) MarshalJSON() ([]byte, error) {
	if c.Logs == nil {
		c.Logs = []LogSource{}
	}
	if c.Databases == nil {
		c.Databases = []Database{}
	}
	return appendJSON(nil, reflect.ValueOf(c))
}

// jsonMarshal encodes a leaf value of the JSON view.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
