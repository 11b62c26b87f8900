package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/superbiz/superbiz/internal/loglayout"
	"github.com/superbiz/superbiz/pkg/redact"
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
// environment). Load calls it; cmd calls it on a config it built itself.
func (c *Config) Validate() error {
	v := validator{c: c}
	m := c.Model
	v.checkFields("model", reflect.ValueOf(m), map[string]func(string){
		"host": func(key string) {
			if m.Host.IsZero() {
				v.bad(key, `""`, `empty: write e.g. "http://127.0.0.1:11434"`)
			}
		},
		"name": func(key string) {
			if strings.TrimSpace(m.Name) == "" || strings.IndexFunc(m.Name, unicode.IsSpace) >= 0 {
				v.bad(key, show(m.Name), `must be a model name without spaces, e.g. "qwen3:8b"`)
			}
		},
		"api_key_env": func(key string) { v.envName(key, m.APIKeyEnv) },
	})
	v.provider(m)

	b, l := c.Budget, c.Limits
	v.checkFields("budget", reflect.ValueOf(b), nil)
	v.checkFields("limits", reflect.ValueOf(l), nil)
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
		layoutProblems := v.layout(s)
		v.checkFields(fmt.Sprintf("logs[%d]", i), reflect.ValueOf(s), map[string]func(string){
			loglayout.KeyPattern:    func(key string) { v.layoutKey(key, s.Pattern, layoutProblems[loglayout.KeyPattern]) },
			loglayout.KeyTimeLayout: func(key string) { v.layoutKey(key, s.TimeLayout, layoutProblems[loglayout.KeyTimeLayout]) },
			loglayout.KeySample:     func(key string) { v.layoutKey(key, s.Sample, layoutProblems[loglayout.KeySample]) },
			"name":                  func(key string) { v.name(key, i, s.Name, seen, "logs") },
			"paths": func(key string) {
				if len(s.Paths) == 0 {
					v.bad(key, "[]", `must list at least one file or glob, e.g. ["/var/log/app/*.log"]`)
				}
				for j, p := range s.Paths {
					pk := fmt.Sprintf("%s[%d]", key, j)
					if strings.TrimSpace(p) == "" {
						v.bad(pk, `""`, "empty: write a file path or glob")
						continue
					}
					if _, err := filepath.Match(p, ""); err != nil {
						v.bad(pk, show(p), "not a valid glob pattern (check the [ ] brackets)")
					}
				}
			},
			"timezone": func(key string) {
				if s.Location == nil {
					if _, err := loadLocation(s.Timezone); err != nil || s.Timezone == "" {
						v.bad(key, show(s.Timezone), `not a known time zone, write an IANA name such as "Asia/Shanghai", "UTC" or "Local"`)
					}
				}
			},
		})
	}

	seen = map[string]int{}
	for i, d := range c.Databases {
		v.checkFields(fmt.Sprintf("databases[%d]", i), reflect.ValueOf(d), map[string]func(string){
			"name": func(key string) { v.name(key, i, d.Name, seen, "databases") },
			"dsn": func(key string) {
				switch d.Driver {
				case DriverMySQL, DriverPostgres, DriverSQLite:
				default:
					return // the driver's own problem is reported
				}
				if d.DSN.IsZero() {
					v.bad(key, `""`, `empty: write e.g. "readonly:secret@tcp(127.0.0.1:3306)/orders" (mysql), "postgres://readonly:secret@127.0.0.1:5432/orders" (postgres) or a file path (sqlite)`)
				} else if d.DSN.Driver() != d.Driver {
					v.rule(key, fmt.Sprintf("was not checked for driver %q: build it with config.NewDSN", d.Driver))
				}
			},
		})
	}
	v.alerts(c.Alerts)
	seen = map[string]int{}
	for i, m := range c.Metrics {
		v.checkFields(fmt.Sprintf("metrics[%d]", i), reflect.ValueOf(m), map[string]func(string){
			"name": func(key string) { v.name(key, i, m.Name, seen, "metrics") },
			"url": func(key string) {
				if msg := baseURLProblem(m.URL, "http://127.0.0.1:9090"); msg != "" {
					v.bad(key, show(redact.String(m.URL)), msg)
				}
			},
		})
		v.auth(fmt.Sprintf("metrics[%d]", i), m.HTTPAuth)
	}
	if len(v.probs) == 0 {
		return nil
	}
	return &Error{File: c.File, Problems: v.probs}
}

// providerKeys are the [model] keys that mean something for one provider
// only, in the order problems are reported.
var providerKeys = []struct{ key, provider string }{
	{"model.host", ProviderOllama}, {"model.num_ctx", ProviderOllama}, {"model.think", ProviderOllama},
	{"model.url", ProviderOpenAI}, {"model.api_key_env", ProviderOpenAI}, {"model.stream", ProviderOpenAI}, {"model.structured", ProviderOpenAI},
}

// provider reports a key set (in the file or by a flag) that has no
// meaning for the chosen provider, and an openai provider without a URL.
// An environment variable (OLLAMA_HOST, OPENAI_BASE_URL) is ambient, not a
// choice: the other provider's is ignored.
func (v *validator) provider(m Model) {
	if m.Provider != ProviderOllama && m.Provider != ProviderOpenAI {
		return // the enum's own problem is reported
	}
	for _, pk := range providerKeys {
		set := v.c.fileKeys[pk.key] || strings.HasPrefix(v.c.origins[pk.key], "--")
		if set && pk.provider != m.Provider {
			v.rule(pk.key, fmt.Sprintf("has no meaning for model.provider = %q (it applies to %q only): remove it, or set model.provider = %q", m.Provider, pk.provider, pk.provider))
		}
	}
	if m.Provider == ProviderOpenAI && m.URL.IsZero() {
		v.rule("model.url", fmt.Sprintf("is required with model.provider = %q: the server's base URL, e.g. \"http://127.0.0.1:8000/v1\" (vLLM) or \"https://api.openai.com/v1\"; or set $%s", ProviderOpenAI, EnvOpenAIBaseURL))
	}
}

// layout checks a [[logs]] entry's custom layout keys and returns the
// problem of each key at fault (pattern, time_layout, sample).
func (v *validator) layout(s LogSource) map[string]string {
	probs := map[string]string{}
	if s.Format != FormatCustom {
		for key, val := range map[string]string{loglayout.KeyPattern: s.Pattern, loglayout.KeyTimeLayout: s.TimeLayout, loglayout.KeySample: s.Sample} {
			if val != "" {
				probs[key] = fmt.Sprintf("used only with format = %q (format is %q): set format = %q or remove %s", FormatCustom, s.Format, FormatCustom, key)
			}
		}
		return probs
	}
	l, err := loglayout.Compile(s.Pattern, s.TimeLayout)
	var le *loglayout.Error
	switch {
	case errors.As(err, &le):
		probs[le.Key] = le.Problem
		return probs
	case err != nil:
		probs[loglayout.KeyPattern] = err.Error()
		return probs
	}
	if s.Sample == "" {
		return probs
	}
	loc := s.Location
	if loc == nil {
		var lerr error
		if loc, lerr = loadLocation(s.Timezone); lerr != nil {
			loc = time.UTC // the timezone key reports its own problem
		}
	}
	if err := l.CheckSample(s.Sample, loc); errors.As(err, &le) {
		probs[le.Key] = le.Problem
	}
	return probs
}

// layoutKey reports a custom layout key's problem, if it has one.
func (v *validator) layoutKey(key, val, problem string) {
	if problem != "" {
		v.bad(key, show(val), problem)
	}
}

// alerts checks the [alerts] table: a plain http(s) URL without
// credentials, and at most one way of authenticating, each naming a
// variable (never holding the secret itself).
func (v *validator) alerts(a Alerts) {
	v.checkFields("alerts", reflect.ValueOf(a), map[string]func(string){
		"url": func(key string) {
			if a.URL == "" {
				return
			}
			if msg := baseURLProblem(a.URL, "http://127.0.0.1:9093"); msg != "" {
				v.bad(key, showHost(a.URL), msg)
			}
		},
	})
	v.auth("alerts", a.HTTPAuth)
	if a.URL == "" && (a.BearerTokenEnv != "" || a.Username != "") {
		v.rule("alerts.url", `missing: authentication is set but no url, write e.g. url = "http://127.0.0.1:9093"`)
	}
}

// auth checks the credentials of the HTTP source at prefix: variable names
// of the right shape, and a bearer token or complete basic authentication,
// not both.
func (v *validator) auth(prefix string, a HTTPAuth) {
	v.envName(prefix+".bearer_token_env", a.BearerTokenEnv)
	v.envName(prefix+".password_env", a.PasswordEnv)
	if a.BearerTokenEnv != "" && (a.Username != "" || a.PasswordEnv != "") {
		v.rule(prefix+".bearer_token_env", "is set together with username/password_env: give a bearer token or basic authentication, not both")
	}
	if (a.Username == "") != (a.PasswordEnv == "") {
		v.rule(prefix+".username", "basic authentication needs both username and password_env (the variable holding the password)")
	}
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
		v.bad(key, show(d), fmt.Sprintf("must be between %s and %s", FormatDuration(lo), FormatDuration(hi)))
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
	if !isSourceName(name) {
		if name == "" {
			v.bad(key, `""`, "missing: every entry needs a name the model can use, e.g. \"app\"")
		} else {
			v.bad(key, show(name), "must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
		}
		return
	}
	if first, dup := seen[name]; dup {
		v.bad(key, show(name), fmt.Sprintf("duplicate: %s[%d] already uses this name; names in [[%s]] must be unique", list, first, list))
		return
	}
	seen[name] = idx
}

// envName checks the shape of a variable name key (empty: not set).
func (v *validator) envName(key, name string) {
	if name != "" && !isEnvVarName(name) {
		v.bad(key, show(name), "must name an environment variable (letters, digits, '_'), e.g. \"PROM_TOKEN\"; the secret itself goes in that variable, never in the file")
	}
}

// baseURLProblem says what is wrong with raw as a server's base URL ("" when
// nothing): http or https, a host, an optional path prefix
// (/select/0/prometheus), a valid port, no credentials (they come from the
// *_env keys), no query or fragment. example is a URL to suggest.
func baseURLProblem(raw, example string) string {
	raw = strings.TrimSpace(raw)
	eg := "write e.g. " + strconv.Quote(example)
	if raw == "" {
		return "empty: write the server's base URL, e.g. " + strconv.Quote(example)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "not a valid URL: " + eg
	case u.Scheme != "http" && u.Scheme != "https":
		return "scheme " + strconv.Quote(u.Scheme) + " not supported: must start with http:// or https://, " + eg
	case u.User != nil:
		return "must not carry credentials: name the variable holding them with bearer_token_env, or username and password_env"
	case u.Host == "" || u.Hostname() == "":
		return "has no host: " + eg
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "#"):
		return "must not carry a query or a fragment: give the base URL only"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "invalid port: use a number between 1 and 65535"
		}
	}
	return ""
}

// FormatDuration prints a duration the way a person writes it in the file
// ("5m", "6h"); it is tools.FormatDuration, named here for the callers that
// show config values.
func FormatDuration(d time.Duration) string { return tools.FormatDuration(d) }
