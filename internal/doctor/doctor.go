// Package doctor holds the checks of `superbiz doctor`: each one looks at one
// part a diagnosis needs (configuration, run store, Ollama and the model,
// knowledge paths, log sources, databases, Alertmanager) and returns typed
// results; cmd keeps the flags, the wiring and the rendering.
package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
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

// Result is one line of `superbiz doctor`: what was checked, what was
// found, and for anything not fine, the fix. JSON output is an array of these.
type Result struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Hint   string `json:"hint"`
	Status Status `json:"-"`
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

// Skipped is a check not run because an earlier one already failed on its cause.
func Skipped(check, detail string) Result {
	return Result{Check: check, OK: false, Detail: detail, Status: Skip}
}

// Timeout bounds each network check, so a black-holed host cannot hang
// doctor.
const Timeout = 10 * time.Second

// Wiring is what only cmd builds from the configuration, handed to the
// checks so they probe exactly what a run would use.
type Wiring struct {
	// EmbedClient is the chosen provider's client of [knowledge] embed_model.
	EmbedClient func(*config.Config) (EmbedClient, error)
	// AlertsClient is the Alertmanager client of [alerts], with its credential.
	AlertsClient func(*config.Config) (*alerts.Client, error)
	// Metrics checks the [[metrics]] sources (it stays next to their
	// credential resolution in cmd).
	Metrics func(context.Context, *config.Config) []Result
}

// EmbedClient is an embedder that names its server, for the embed check.
type EmbedClient interface {
	model.Embedder
	Host() string
}

// ConfigNotLoaded is the one result when the configuration does not load:
// every other check depends on what the file says.
func ConfigNotLoaded(err error) Result {
	return Failed("config", err.Error(), "fix the configuration (see `superbiz --help` and the README), then run `superbiz doctor` again")
}

// Run runs every check in order on a loaded configuration.
func Run(ctx context.Context, cfg *config.Config, w Wiring) []Result {
	results := []Result{Config(cfg)}
	results = append(results, RunStore(ctx, cfg.DBPath))
	results = append(results, Model(ctx, cfg)...)
	results = append(results, Knowledge(ctx, cfg)...)
	results = append(results, Embed(ctx, cfg, w.EmbedClient))
	results = append(results, Logs(ctx, cfg)...)
	results = append(results, Databases(ctx, cfg)...)
	if w.Metrics != nil {
		results = append(results, w.Metrics(ctx, cfg)...)
	}
	results = append(results, Alerts(ctx, cfg, w.AlertsClient)...)
	return results
}

// Config says which file (or the defaults) was loaded and which model and
// host it names, with the flag or variable that set them.
func Config(cfg *config.Config) Result {
	where := "defaults (no config file)"
	if cfg.File != "" {
		where = cfg.File
	}
	return Passed("config", fmt.Sprintf("%s; model %s%s at %s%s", where,
		cfg.Model.Name, from(cfg, "model.name"), cfg.Model.Host.Redacted(), from(cfg, "model.host")))
}

// from names the flag or variable that set key, so a surprising value can be
// traced ("" when it came from the file or the defaults).
func from(cfg *config.Config, key string) string {
	if o := cfg.Origin(key); o != "" {
		return " (from " + o + ")"
	}
	return ""
}

// RunStore opens (and migrates) the run store at path, then closes it.
func RunStore(ctx context.Context, path string) Result {
	st, err := runstore.Open(ctx, path, runstore.Component{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()})
	if err != nil {
		return Failed("run store", err.Error(), "make the directory writable, or choose another file with --db or SUPERBIZ_DB")
	}
	if err := st.Close(); err != nil {
		return Failed("run store", fmt.Sprintf("%s: close: %v", path, err), "make the directory writable, or choose another file with --db or SUPERBIZ_DB")
	}
	return Passed("run store", path+" opens and is migrated")
}
