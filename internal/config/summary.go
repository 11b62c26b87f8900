package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/redact"
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
		c.modelLine(),
		"budget: " + c.pairs("budget", reflect.ValueOf(c.Budget)),
		"limits (bytes): " + c.pairs("limits", reflect.ValueOf(c.Limits)),
		"knowledge: " + listOrNone(c.Knowledge.Paths),
	}
	for _, s := range c.Logs {
		skip := []string{"name", "paths"}
		if s.Format != FormatCustom { // the layout keys are unused: not shown
			skip = append(skip, "pattern", "time_layout", "sample")
		}
		if s.Service == "" { // unset: the entries' own services
			skip = append(skip, "service")
		}
		lines = append(lines, fmt.Sprintf("logs %s: %s (%s)",
			s.Name, listOrNone(s.Paths), c.pairs("", reflect.ValueOf(s), skip...)))
	}
	if len(c.Logs) == 0 {
		lines = append(lines, "logs: none configured")
	}
	for _, d := range c.Databases {
		lines = append(lines, fmt.Sprintf("database %s: %s %s (%s)",
			d.Name, d.Driver, d.DSN.Redacted(), c.pairs("", reflect.ValueOf(d), "name", "driver", "dsn")))
	}
	if len(c.Databases) == 0 {
		lines = append(lines, "databases: none configured")
	}
	for _, m := range c.Metrics {
		lines = append(lines, fmt.Sprintf("metrics %s: %s (%s, auth %s)",
			m.Name, m.URL, c.pairs("", reflect.ValueOf(m), "name", "url", "bearer_token_env", "username", "password_env"), m.Auth()))
	}
	if len(c.Metrics) == 0 {
		lines = append(lines, "metrics: none configured")
	}
	lines = append(lines, "skills: built-in"+extra(c.Skills.Paths))
	lines = append(lines, c.alertsLine())
	if !c.Now.IsZero() {
		lines = append(lines, "clock: fixed at "+c.Now.Format("2006-01-02T15:04:05Z07:00")+" ($"+EnvNow+")")
	}
	return lines
}

// alertsLine is the Summary's [alerts] line: where, how authenticated
// (the variable's name only), the timeout.
func (c *Config) alertsLine() string {
	a := c.Alerts
	if a.URL == "" {
		return "alerts: none configured"
	}
	auth := a.Describe(func(env string) string { return "$" + env })
	return fmt.Sprintf("alerts: %s (auth %s, timeout %s)", redact.Userinfo(a.URL), auth, FormatDuration(a.Timeout))
}

// String is the Summary on one line per part; it is what %v and %s print.
func (c Config) String() string { return strings.Join(c.Summary(), "\n") }

// GoString keeps %#v from walking the struct; it prints the redacted summary.
func (c Config) GoString() string { return "config.Config{" + strconv.Quote(c.String()) + "}" }

// pairs renders the declared keys of table v as "key value" pairs in
// declaration order, each followed by the flag or variable that set it; keys
// in skip are left out (the caller shows them its own way).
func (c *Config) pairs(prefix string, v reflect.Value, skip ...string) string {
	var out []string
	for _, s := range specsOf(v.Type()) {
		if slices.Contains(skip, s.key) {
			continue
		}
		fv := v.FieldByIndex(s.index)
		var val string
		switch {
		case s.typ == durationType:
			val = FormatDuration(time.Duration(fv.Int()))
		case fv.Kind() == reflect.Float64:
			val = fmtFloat(fv.Float())
		default:
			val = fmt.Sprint(fv.Interface())
		}
		out = append(out, s.key+" "+val+c.from(prefix+"."+s.key))
	}
	return strings.Join(out, ", ")
}

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
	if c.Metrics == nil {
		c.Metrics = []MetricsSource{}
	}
	return appendJSON(nil, reflect.ValueOf(c))
}

// jsonMarshal encodes a leaf value of the JSON view.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// modelLine describes the model and its provider; the key's value never
// appears, only whether its variable is set.
func (c *Config) modelLine() string {
	m := c.Model
	if m.Provider == ProviderOpenAI {
		key := "unset"
		if !m.APIKey.IsZero() {
			key = "set"
		}
		return fmt.Sprintf("model: %s%s at %s%s (provider openai%s, key $%s %s, stream %t, structured %s, temperature %s, language %s, request_timeout %s)",
			m.Name, c.from("model.name"), m.URL.Redacted(), c.from("model.url"), c.from("model.provider"), m.APIKeyEnv, key,
			m.Stream, m.Structured, strconv.FormatFloat(m.Temperature, 'g', -1, 64), m.Language, FormatDuration(m.RequestTimeout))
	}
	return fmt.Sprintf("model: %s%s at %s%s (num_ctx %d, temperature %s, think %t, language %s, request_timeout %s)",
		m.Name, c.from("model.name"), m.Host.Redacted(), c.from("model.host"),
		m.NumCtx, strconv.FormatFloat(m.Temperature, 'g', -1, 64), m.Think,
		m.Language, FormatDuration(m.RequestTimeout))
}
