package config

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// Part is one integration's share of the configuration beside its table's
// declaration in config.go: the rules the table's tags cannot state, the
// table's lines of Summary, and what it reads at load from outside the
// file. Each folder under internal/integration/ gives the part of its
// table; internal/registry hands them all to Load (LoadOptions.Parts), so
// this package names no source.
type Part struct {
	// Table is the key of the table the part belongs to ("logs", "model").
	Table string
	// Schema, when set, declares the table itself, so that Config needs no
	// field for it: a value of the table's Go type, a struct for [x] or a
	// slice of structs for [[x]] (e.g. []redis.Source(nil)), whose struct
	// tags are its keys, defaults and bounds as for config's own tables.
	// Load decodes it (unknown keys refused by name), Validate checks its
	// ranges, enums and names, and Summary, the JSON view, Keys and
	// KeySpecs show it after config's own tables, in the parts' order. The
	// folder reads it with TableOf; a Go program sets it with SetTable.
	Schema any
	// Decoded, when set, runs on the table as the file decoded it, before
	// paths, the environment and Check: it completes what the table's Go
	// type cannot decode by itself (a log source's time zone loaded by
	// name). Its error names the key at fault: a *KeyError is reported
	// as the file's other values are (`key = "x" in FILE: problem`), and
	// several are joined (errors.Join). It does not run without a file.
	Decoded func(cfg *Config) error
	// Env are the variables that set a key of the table, at the
	// environment's place in the precedence (flag > environment > file >
	// default): OLLAMA_HOST for model.host. A server URL key's value is
	// checked and normalised like the file's.
	Env []EnvKey
	// Paths, when set, makes the table's file paths absolute at load
	// (Paths.All, Paths.Abs), before any Check; a path it cannot take is a
	// problem naming the key.
	Paths func(cfg *Config, r Paths) []string
	// Resolve, when set, reads at load, after the precedence of flag,
	// environment and file, what the table names outside the file: the
	// credential in the variable a *_env key names.
	Resolve func(cfg *Config, getenv func(string) string)
	// Check, when set, reports the table's problems that its tags cannot:
	// names, URLs, cross-field rules. Ranges and enums are checked from the
	// tags first.
	Check func(cfg *Config, c *Checker)
	// Summary, when set, gives the table's lines of Config.Summary, never a
	// secret.
	Summary func(cfg *Config) []string
	// Example is a small TOML of the table that loads as it is beside every
	// other part's (an entry of an array of tables for each tool the source adds,
	// its required keys set, no secret): how the registry's tests and docs/SPEC.md configure the
	// source without a list of their own.
	Example string
	// Docs describe the table's keys in docs/SPEC.md's generated Keys
	// table, by key in Keys' notation: every key the table declares needs
	// one (internal/specref fails otherwise), so a key is documented where
	// it is added.
	Docs map[string]KeyDoc
}

// KeyError is a problem with one key's value that a share finds in the
// decoded file (Part.Decoded). Shown is the value as a message may echo
// it (Show, ShowHost), "" to echo none (a DSN).
type KeyError struct{ Key, Shown, Problem string }

// Error reads `key = shown: problem` (`key: problem` without Shown); Load
// names the file after the value.
func (e *KeyError) Error() string {
	if e.Shown == "" {
		return e.Key + ": " + e.Problem
	}
	return e.Key + " = " + e.Shown + ": " + e.Problem
}

// EnvKey is one environment variable of a share (Part.Env) and the key it sets.
type EnvKey struct{ Var, Key string }

// KeyDoc is what docs/SPEC.md says of one key beyond its tags. Accepted
// is the prose after what the tags generate (the provider it is for, the
// range): text following a range starts with its own separator (": the
// longest window", ", and at least …"). Type and Default replace the
// generated cells when the Go type or the default tag says too little
// ("URL", "array of globs", "required").
type KeyDoc struct{ Type, Default, Accepted string }

// Checker collects the problems of one Validate call; a Part's Check
// reports through it, naming the key and where its value came from.
type Checker struct {
	c     *Config
	probs []string
}

// where names the value's source: the flag or variable that set it, or the
// key in the file.
func (v *Checker) where(key, shown string) string {
	if o := v.c.origins[key]; o != "" {
		return fmt.Sprintf("%s = %s", o, shown)
	}
	if v.c.File != "" {
		return fmt.Sprintf("%s = %s in %s", key, shown, v.c.File)
	}
	return fmt.Sprintf("%s = %s", key, shown)
}

// Bad reports the value of key, shown as shown (Show, ShowHost), as wrong
// for problem: `key = "x" in FILE: problem`.
func (v *Checker) Bad(key, shown, problem string) {
	v.probs = append(v.probs, v.where(key, shown)+": "+problem)
}

// Rule reports a cross-field problem about key, saying where key was set.
func (v *Checker) Rule(key, msg string) {
	switch o := v.c.origins[key]; {
	case o != "":
		v.probs = append(v.probs, fmt.Sprintf("%s (from %s): %s", key, o, msg))
	case v.c.File != "":
		v.probs = append(v.probs, fmt.Sprintf("%s in %s: %s", key, v.c.File, msg))
	default:
		v.probs = append(v.probs, fmt.Sprintf("%s: %s", key, msg))
	}
}

// Paths reports each empty entry of the directory list at key.
func (v *Checker) Paths(key string, ps []string) {
	for i, p := range ps {
		if strings.TrimSpace(p) == "" {
			v.Bad(fmt.Sprintf("%s[%d]", key, i), `""`, "empty: write a directory path or remove the entry")
		}
	}
}

// Name checks the shape of entry idx's name in the array of tables list
// (the model writes it in tool inputs) and its uniqueness there; seen holds
// the names of the entries checked before. Validate calls it for every
// array of tables whose entries have a name key.
func (v *Checker) Name(key string, idx int, name string, seen map[string]int, list string) {
	if !isSourceName(name) {
		if name == "" {
			v.Bad(key, `""`, "missing: every entry needs a name the model can use, e.g. \"app\"")
		} else {
			v.Bad(key, Show(name), "must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
		}
		return
	}
	if first, dup := seen[name]; dup {
		v.Bad(key, Show(name), fmt.Sprintf("duplicate: %s[%d] already uses this name; names in [[%s]] must be unique", list, first, list))
		return
	}
	seen[name] = idx
}

// EnvName checks the shape of a key naming a variable (empty: not set).
func (v *Checker) EnvName(key, name string) {
	if name != "" && !isEnvVarName(name) {
		v.Bad(key, Show(name), "must name an environment variable (letters, digits, '_'), e.g. \"PROM_TOKEN\"; the secret itself goes in that variable, never in the file")
	}
}

// Auth checks the credentials of the HTTP source at prefix: variable names
// of the right shape, and a bearer token or complete basic authentication,
// not both.
func (v *Checker) Auth(prefix string, a HTTPAuth) {
	v.EnvName(prefix+".bearer_token_env", a.BearerTokenEnv)
	v.EnvName(prefix+".password_env", a.PasswordEnv)
	if a.BearerTokenEnv != "" && (a.Username != "" || a.PasswordEnv != "") {
		v.Rule(prefix+".bearer_token_env", "is set together with username/password_env: give a bearer token or basic authentication, not both")
	}
	if (a.Username == "") != (a.PasswordEnv == "") {
		v.Rule(prefix+".username", "basic authentication needs both username and password_env (the variable holding the password)")
	}
}

// AuthDocs adds to docs the KeyDocs of the HTTP credentials at prefix
// ("alerts", "metrics[]"), which every HTTP source describes alike.
func AuthDocs(prefix string, docs map[string]KeyDoc) map[string]KeyDoc {
	docs[prefix+".bearer_token_env"] = KeyDoc{Accepted: "the environment variable holding a bearer token (sent as `Authorization: Bearer`); not with `username`"}
	docs[prefix+".username"] = KeyDoc{Accepted: "basic authentication user; needs `password_env`"}
	docs[prefix+".password_env"] = KeyDoc{Accepted: "the environment variable holding the basic authentication password; needs `username`"}
	return docs
}

// Show renders a value for a message, clipped to its first line.
func Show(v any) string { return show(v) }

// ShowHost renders a URL for a message with any userinfo hidden.
func ShowHost(s string) string { return showHost(s) }

// BaseURLProblem says what is wrong with raw as a server's base URL ("" when
// nothing): http or https, a host, an optional path prefix
// (/select/0/prometheus), a valid port, no credentials (they come from the
// *_env keys), no query or fragment. example is a URL to suggest.
func BaseURLProblem(raw, example string) string {
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

// Pairs renders the declared keys of table (a struct of the schema) as
// "key value" pairs in declaration order, each followed by the flag or
// variable that set it (prefix.key); keys in skip are left out, for the
// caller shows them its own way. Summary lines are made of it.
func (c *Config) Pairs(prefix string, table any, skip ...string) string {
	return c.pairs(prefix, reflect.ValueOf(table), skip...)
}

// From is " (from --host)" when a flag or variable set key, for Summary
// lines; "" otherwise.
func (c *Config) From(key string) string { return c.from(key) }

// ListOrNone joins paths for a Summary line, "none" for none.
func ListOrNone(ps []string) string { return listOrNone(ps) }
