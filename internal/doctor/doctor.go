// Package doctor is the vocabulary of `superbiz doctor`: a typed result per
// check, and the two checks no integration owns (the configuration and the
// run store). Each integration under internal/integration/ owns its own
// check; internal/registry runs them in order; cmd renders them.
package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Status is how one check ended; only Fail fails doctor.
type Status int

// The statuses of a check, in the order docs/SPEC.md#superbiz-doctor lists them.
const (
	Pass Status = iota
	Warn
	Fail
	Skip
)

// statusNames are the statuses as `doctor -o json` spells them.
var statusNames = [...]string{Pass: "ok", Warn: "warn", Fail: "fail", Skip: "skip"}

// String is the status's JSON name.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalText writes the status by name, so a script reads "warn", not 1.
func (s Status) MarshalText() ([]byte, error) {
	if int(s) >= len(statusNames) {
		return nil, fmt.Errorf("doctor: no status %d", int(s))
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText reads a status by name, for programs that read doctor's JSON.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("doctor: unknown status %q (want ok, warn, fail or skip)", b)
}

// Result is one line of `superbiz doctor`: what was checked, how it ended,
// what was found, and for anything not fine, the fix. JSON output is an
// array of these; OK is false only for a failed check (the one status that
// fails doctor), so a warning or a skipped check reads ok.
type Result struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Hint   string `json:"hint"`
}

// Passed is a check that found everything fine.
func Passed(check, detail string) Result {
	return Result{Check: check, OK: true, Detail: detail, Status: Pass}
}

// Warned is a check that found something worth fixing that does not stop a diagnosis.
func Warned(check, detail, hint string) Result {
	return Result{Check: check, OK: true, Detail: detail, Hint: hint, Status: Warn}
}

// Failed is a check that found something a diagnosis cannot work with.
func Failed(check, detail, hint string) Result {
	return Result{Check: check, OK: false, Detail: detail, Hint: hint, Status: Fail}
}

// Skipped is a check not run (an earlier one already failed on its cause,
// or it has nothing to check); it does not fail doctor.
func Skipped(check, detail string) Result {
	return Result{Check: check, OK: true, Detail: detail, Status: Skip}
}

// Timeout bounds each network check, so a black-holed host cannot hang
// doctor.
const Timeout = 10 * time.Second

// ConfigHint is the fix of a configuration that does not load: where every
// key is described, and a commented file to compare with (the error names
// the file or the variable at fault).
const ConfigHint = "every key, its type and default is in docs/SPEC.md#keys; `superbiz config init` writes a commented starting file, `superbiz config path` says which file is read; then run `superbiz doctor` again"

// ConfigNotLoaded is the one result when the configuration does not load:
// every other check depends on what the file says.
func ConfigNotLoaded(err error) Result {
	return Failed("config", err.Error(), ConfigHint)
}

// Config says which file (or the defaults) was loaded, which model,
// provider and server URL (the effective one, the chosen provider's key)
// it names, and which flag, variable or file set each, or that it is the
// default.
func Config(cfg *config.Config) Result {
	where := "defaults (no config file)"
	if cfg.File != "" {
		where = cfg.File
	}
	m := cfg.Model
	at := fmt.Sprintf("at %s%s", m.Endpoint(), from(cfg, m.URLKey()))
	if m.Endpoint() == "" {
		at = "with no " + m.URLKey() // the model check below says how to set it
	}
	return Passed("config", fmt.Sprintf("%s; model %s%s %s, provider %s%s", where,
		m.Name, from(cfg, "model.name"), at, m.Provider, from(cfg, "model.provider")))
}

// MaxListed bounds how many names (models) a doctor line lists, and how
// many pulled models a hint asks about.
const MaxListed = 8

// Listed names at most MaxListed names (and how many more), or "none".
func Listed(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	text := strings.Join(names[:min(len(names), MaxListed)], ", ")
	if more := len(names) - MaxListed; more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return textclip.Bytes(text, 400)
}

// from names the flag, variable or file that set key, so a surprising value
// can be traced, or says it is the default.
func from(cfg *config.Config, key string) string {
	if o := cfg.SetBy(key); o != "" {
		return " (from " + o + ")"
	}
	return " (default)"
}

// RunStore opens (and migrates, with the tables of the components) the
// run store at path, then closes it.
func RunStore(ctx context.Context, path string, components ...runstore.Component) Result {
	st, err := runstore.Open(ctx, path, components...)
	if err != nil {
		return Failed("run store", err.Error(), "make the directory writable, or choose another file with --db or SUPERBIZ_DB")
	}
	if err := st.Close(); err != nil {
		return Failed("run store", fmt.Sprintf("%s: close: %v", path, err), "make the directory writable, or choose another file with --db or SUPERBIZ_DB")
	}
	return Passed("run store", path+" opens and is migrated")
}
