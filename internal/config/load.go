package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/adrg/xdg"
)

// Environment variables superbiz itself reads; named once so docs and tests
// agree. A variable of one provider or source is declared by its
// integration's share (Part.Env).
const (
	EnvConfig   = "SUPERBIZ_CONFIG"
	EnvDB       = "SUPERBIZ_DB"
	EnvModel    = "SUPERBIZ_MODEL"
	EnvNow      = "SUPERBIZ_NOW"
	EnvProvider = "SUPERBIZ_PROVIDER"
)

// ownEnv are the variables of config's own keys, applied before the shares'.
var ownEnv = []EnvKey{{Var: EnvModel, Key: "model.name"}, {Var: EnvProvider, Key: "model.provider"}}

// Overrides are the values given on the command line. A nil field means the
// flag was not given, so "not given" differs from "given as zero"; cmd fills
// them from cobra's Flags().Changed. A field tagged key replaces that key's
// value (its tag flag names it in messages and Summary), parsed as that
// key's type; DBPath and URL are resolved by Load itself.
type Overrides struct {
	DBPath        *string        // --db
	Model         *string        `key:"model.name" flag:"--model"`
	Host          *string        `key:"model.host" flag:"--host"`
	URL           *string        // --url: the model server for either provider (model.host or model.url)
	Provider      *string        `key:"model.provider" flag:"--provider"`
	MaxModelCalls *int           `key:"budget.max_model_calls" flag:"--max-model-calls"`
	MaxToolCalls  *int           `key:"budget.max_tool_calls" flag:"--max-tool-calls"`
	MaxTokens     *int           `key:"budget.max_tokens" flag:"--max-tokens"`
	Timeout       *time.Duration `key:"budget.deadline" flag:"--timeout"`
}

// apply sets every given override that names a key, recording its flag as
// the value's origin; a value the key's type refuses is a problem naming
// the flag.
func (ov Overrides) apply(cfg *Config) (probs []string) {
	v, t := reflect.ValueOf(ov), reflect.TypeFor[Overrides]()
	for i := range t.NumField() {
		key, flag := t.Field(i).Tag.Get("key"), t.Field(i).Tag.Get("flag")
		if key == "" || v.Field(i).IsNil() {
			continue
		}
		dst := fieldByKey(reflect.ValueOf(cfg).Elem(), key)
		if raw, ok := v.Field(i).Interface().(*string); ok && dst.Type() == hostType {
			if err := cfg.setString(key, *raw); err != nil {
				probs = append(probs, fmt.Sprintf("%s = %s: %v", flag, showHost(*raw), err))
				continue
			}
		} else {
			dst.Set(v.Field(i).Elem())
		}
		cfg.origins[key] = flag
	}
	return probs
}

// EnvOf is the variable that sets key ("" for none): config's own, or the
// one a share of the configuration declares (Part.Env), for help texts.
func (c *Config) EnvOf(key string) string {
	vars := ownEnv
	for _, p := range c.parts {
		vars = append(vars, p.Env...)
	}
	for _, e := range vars {
		if e.Key == key {
			return e.Var
		}
	}
	return ""
}

// gives reports whether a flag given sets key.
func (ov Overrides) gives(key string) bool {
	v, t := reflect.ValueOf(ov), reflect.TypeFor[Overrides]()
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("key") == key && !v.Field(i).IsNil() {
			return true
		}
	}
	return false
}

// setString sets key from a text of the environment or a flag: a server
// URL key parsed and normalised (ParseHost), a string key as it is.
func (c *Config) setString(key, raw string) error {
	dst := fieldByKey(reflect.ValueOf(c).Elem(), key)
	switch {
	case dst.Type() == hostType:
		h, err := ParseHost(raw)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(h))
	case dst.Kind() == reflect.String:
		dst.SetString(raw)
	default:
		return fmt.Errorf("config: key %s (%s) cannot be set from a text", key, dst.Type())
	}
	return nil
}

// LoadOptions carries everything Load depends on, so nothing is read from
// process-global state the caller did not pass.
type LoadOptions struct {
	// ConfigPath is the --config flag, "" when not given.
	ConfigPath string
	// WorkDir is where ./superbiz.toml is looked for and what relative flag and
	// environment paths resolve against; "" means the process's directory.
	WorkDir string
	// Getenv reads the environment; nil means os.Getenv. An empty value is unset.
	Getenv func(string) string
	// Overrides are the flags the user gave.
	Overrides Overrides
	// ModelOf, when set, gives the [model] table, and what set each of its
	// values, of a configuration resolved already: eval runs every pack's
	// file on the model the eval command resolved. Neither the file, the
	// environment nor the flags are then read for [model].
	ModelOf *Config
	// Parts are the integrations' shares of the configuration: their rules,
	// their summary lines and what they read at load (credentials). Load
	// runs them after config's own; registry.Load gives every registered
	// one. Without them only config's own rules apply.
	Parts []Part
}

// Load finds, reads and validates the configuration, then applies the
// environment and the flags. Every problem in the file is reported at once in
// an *Error; the error never contains a password.
func Load(opts LoadOptions) (*Config, error) {
	getenv, wd, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	file, err := findFile(opts.ConfigPath, wd, getenv)
	if err != nil {
		return nil, &Error{Problems: []string{err.Error()}}
	}
	var data []byte
	if file != "" {
		if data, err = readFile(file); err != nil {
			return nil, &Error{File: file, Problems: []string{err.Error()}}
		}
	}
	return load(data, file, wd, getenv, opts.Overrides, opts.ModelOf, opts.Parts...)
}

// load builds the configuration from the file's bytes (none when file is "").
func load(data []byte, file, wd string, getenv func(string) string, ov Overrides, modelOf *Config, parts ...Part) (*Config, error) {
	cfg := Defaults(parts...)
	cfg.File = file
	cfg.origins = map[string]string{}
	base := wd
	if file != "" {
		base = filepath.Dir(file)
		probs, fatal := decode(data, file, &cfg)
		if fatal {
			return nil, &Error{File: file, Problems: probs}
		}
		probs = append(probs, decoded(&cfg, parts)...)
		if len(probs) > 0 {
			return nil, &Error{File: file, Problems: probs}
		}
	}
	var probs []string
	home := getenv("HOME")
	resolve := func(p, from string) string { return resolvePath(p, from, home) }

	// each share's file paths, against the file's directory
	for _, p := range parts {
		if p.Paths != nil {
			probs = append(probs, p.Paths(&cfg, Paths{base: base, home: home})...)
		}
	}
	if len(probs) > 0 {
		return nil, &Error{File: file, Problems: probs}
	}

	// run store: flag > env > file > default
	switch {
	case ov.DBPath != nil:
		cfg.DBPath = strings.TrimSpace(*ov.DBPath)
		cfg.origins["db"] = "--db"
		if cfg.DBPath != "" {
			cfg.DBPath = resolve(cfg.DBPath, wd)
		}
	case getenv(EnvDB) != "":
		cfg.DBPath = resolve(getenv(EnvDB), wd)
		cfg.origins["db"] = "$" + EnvDB
	case cfg.DBPath != "":
		cfg.DBPath = resolve(cfg.DBPath, base)
	default:
		cfg.DBPath = filepath.Join(dataHome(getenv), "superbiz", "superbiz.db")
	}

	if modelOf != nil {
		probs = append(probs, ov.apply(&cfg)...)
		cfg.Model = modelOf.Model
		for k, o := range modelOf.origins {
			if strings.HasPrefix(k, "model.") {
				cfg.origins[k] = o
			}
		}
	} else {
		probs = append(probs, resolveEnv(&cfg, getenv, ov, parts)...)
	}

	for _, p := range parts {
		// [model] comes whole from modelOf, its credential with it.
		if p.Resolve != nil && (modelOf == nil || p.Table != "model") {
			p.Resolve(&cfg, getenv)
		}
	}

	if s := getenv(EnvNow); s != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
		if err != nil {
			probs = append(probs, fmt.Sprintf("$%s = %s: not an RFC 3339 time, write e.g. \"2025-03-01T14:05:00+08:00\"", EnvNow, show(s)))
		} else {
			cfg.Now = t
		}
	}

	if err := cfg.Validate(); err != nil {
		var ve *Error
		if errors.As(err, &ve) {
			probs = append(probs, ve.Problems...)
		} else {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return nil, &Error{File: file, Problems: probs}
	}
	return &cfg, nil
}

// decoded runs each share's Decoded on the file's decoded tables and
// renders its problems as the decoder's: the key, its value and the file.
func decoded(cfg *Config, parts []Part) []string {
	v := &Checker{c: cfg}
	for _, p := range parts {
		if p.Decoded == nil {
			continue
		}
		err := p.Decoded(cfg)
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, err := range errs {
			var ke *KeyError
			switch {
			case err == nil:
			case errors.As(err, &ke) && ke.Shown == "":
				v.Rule(ke.Key, ke.Problem)
			case errors.As(err, &ke):
				v.Bad(ke.Key, ke.Shown, ke.Problem)
			default:
				v.probs = append(v.probs, fmt.Sprintf("%s in %s: %v", p.Table, cfg.File, err))
			}
		}
	}
	return v.probs
}

// resolveEnv applies the environment (config's own variables, then each
// share's Env) and the flags, by the precedence flag > environment > file >
// default: a variable whose key a flag sets is not read.
func resolveEnv(cfg *Config, getenv func(string) string, ov Overrides, parts []Part) (probs []string) {
	vars := ownEnv
	for _, p := range parts {
		vars = append(vars, p.Env...)
	}
	for _, e := range vars {
		raw := getenv(e.Var)
		if raw == "" || ov.gives(e.Key) {
			continue
		}
		if err := cfg.setString(e.Key, raw); err != nil {
			probs = append(probs, fmt.Sprintf("$%s = %s: %v", e.Var, showHost(raw), err))
			continue
		}
		cfg.origins[e.Key] = "$" + e.Var
	}
	probs = append(probs, ov.apply(cfg)...)
	return append(probs, ov.serverURL(cfg)...)
}

// serverURL applies --url to the chosen provider's server key
// (Model.URLKey: the URL key tagged with the provider), once the provider is
// known. --host names model.host only; giving both is a conflict.
func (ov Overrides) serverURL(cfg *Config) []string {
	if ov.URL == nil {
		return nil
	}
	if ov.Host != nil {
		return []string{"--url and --host both name the model server: give one (--url works for either provider)"}
	}
	key := cfg.Model.URLKey()
	if err := cfg.setString(key, *ov.URL); err != nil {
		return []string{fmt.Sprintf("--url = %s: %v", showHost(*ov.URL), err)}
	}
	cfg.origins[key] = "--url"
	return nil
}

// resolve fills in the defaults of Getenv and WorkDir; the directory comes back absolute.
func (opts LoadOptions) resolve() (func(string) string, string, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	wd := opts.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, "", fmt.Errorf("config: find the working directory: %w", err)
		}
	}
	abs, err := filepath.Abs(wd)
	if err != nil {
		return nil, "", fmt.Errorf("config: resolve working directory %q: %w", wd, err)
	}
	return getenv, abs, nil
}

// FindFile is the file Load would read, by the lookup order, so `config path`
// names the same file; "" when none exists. Overrides are ignored.
func FindFile(opts LoadOptions) (string, error) {
	getenv, wd, err := opts.resolve()
	if err != nil {
		return "", err
	}
	return findFile(opts.ConfigPath, wd, getenv)
}

// DefaultFile is the last place of the lookup order,
// $XDG_CONFIG_HOME/superbiz/config.toml, where `config init` writes.
func DefaultFile(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	return filepath.Join(configHome(getenv), "superbiz", "config.toml")
}

// findFile applies the lookup order --config, $SUPERBIZ_CONFIG,
// ./superbiz.toml, $XDG_CONFIG_HOME/superbiz/config.toml. It returns "" when
// no file exists; an explicitly named file that is missing is an error.
func findFile(flagPath, wd string, getenv func(string) string) (string, error) {
	home := getenv("HOME")
	explicit := []struct{ path, from, fix string }{
		{flagPath, "--config", "create it or drop --config"},
		{getenv(EnvConfig), "$" + EnvConfig, "create it or unset " + EnvConfig},
	}
	for _, e := range explicit {
		if e.path == "" {
			continue
		}
		p := resolvePath(e.path, wd, home)
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("config file %s (from %s) does not exist: %s", p, e.from, e.fix)
		case err != nil:
			return "", fmt.Errorf("config file %s (from %s): %v", p, e.from, unwrapPath(err))
		case st.IsDir():
			return "", fmt.Errorf("config file %s (from %s) is a directory: name the .toml file", p, e.from)
		}
		return p, nil
	}
	implicit := []string{
		filepath.Join(wd, "superbiz.toml"),
		DefaultFile(getenv),
	}
	for _, p := range implicit {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return "", fmt.Errorf("config file %s: %v", p, unwrapPath(err))
		case st.IsDir():
			return "", fmt.Errorf("config file %s is a directory: remove it or use --config", p)
		}
		return p, nil
	}
	return "", nil
}

// configHome is $XDG_CONFIG_HOME from getenv, else adrg/xdg's platform default.
func configHome(getenv func(string) string) string {
	if v := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(v) {
		return v
	}
	return xdg.ConfigHome
}

// dataHome is $XDG_DATA_HOME from getenv, else adrg/xdg's platform default.
func dataHome(getenv func(string) string) string {
	if v := getenv("XDG_DATA_HOME"); filepath.IsAbs(v) {
		return v
	}
	return xdg.DataHome
}

// DefaultDBPath is where the run store lives when nothing names it:
// $XDG_DATA_HOME/superbiz/superbiz.db.
func DefaultDBPath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	return filepath.Join(dataHome(getenv), "superbiz", "superbiz.db")
}

// resolvePath makes p absolute against base, expanding a leading "~/".
func resolvePath(p, base, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home != "" {
			p = filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// Paths resolves a share's file paths at load (Part.Paths): relative to
// the configuration file's directory (the working directory when there is
// no file), "~/" expanded against $HOME.
type Paths struct{ base, home string }

// Abs is p made absolute.
func (r Paths) Abs(p string) string { return resolvePath(p, r.base, r.home) }

// All resolves every non-empty path of ps; empty ones stay for the share's
// Check to report.
func (r Paths) All(ps []string) []string {
	if ps == nil {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		if strings.TrimSpace(p) == "" {
			out[i] = p
			continue
		}
		out[i] = r.Abs(p)
	}
	return out
}

// unwrapPath drops the *fs.PathError wrapper whose path the message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
