// Package evalpack freezes a stored diagnosis into an eval regression pack
// (`superbiz eval pack`, docs/EVAL.md#freeze-a-stored-incident): the run's
// question, clock and alert become scenario.toml, and each registered
// integration.Freezer copies the evidence the run read through its source
// into the pack (log lines around its windows, the runbooks, metrics
// samples, SQLite files, recorded MySQL and PostgreSQL answers), every text
// through pkg/redact, with paths of the pack's own. Evidence of a tool no
// Freezer freezes fails the pack.
package evalpack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// ErrRefused marks a run or a destination eval pack will not freeze
// (frozen.ErrRefused): the command exits 2 with the reason.
var ErrRefused = frozen.ErrRefused

// UnavailableError is a server that could not give the evidence to freeze:
// nothing is written, the command exits 4 and names the server.
type UnavailableError = frozen.UnavailableError

// refused is an ErrRefused with its reason.
func refused(format string, args ...any) error { return frozen.Refused(format, args...) }

// Options say which run is frozen, where, and with what expectations.
type Options struct {
	// Run is the stored run, read in full.
	Run *runstore.RunDetail
	// Config is the configuration of the workspace the run was made on:
	// its sources are found by the names the run's calls used.
	Config *config.Config
	// Dir is the suite directory the pack is written into, as Dir/ID.
	Dir string
	// ID is the pack's id; "" derives one from the run's ID.
	ID string
	// RootCauses are the --root-cause values: one root_cause_any group
	// each, its alternatives separated by commas.
	RootCauses []string
	// Outcome is the expected outcome; "" takes the run's published one.
	Outcome runrecord.Outcome
	// Force replaces an existing Dir/ID.
	Force bool
	// Getenv reads the credentials a metrics source names, and TZ.
	Getenv func(string) string
	// Store is the run store the run was read from: its runbook index is
	// searched for each knowledge query's top documents when the runbook
	// set is too large to freeze whole (nil: no index to search).
	Store *runstore.Store
}

// Report is what was frozen, one line per source, and what could not be.
type Report struct {
	// Dir is the pack's directory.
	Dir string `json:"dir"`
	// ID is the pack's id.
	ID string `json:"id"`
	// Frozen says what each source contributed ("logs app: 2 files, 41 lines").
	Frozen []string `json:"frozen"`
}

// Freeze writes the pack of opts.Run into opts.Dir/ID: it is written into a
// temporary folder beside it, loaded back with the eval's own pack loader,
// and only then put in place, so a failed freeze leaves nothing behind.
func Freeze(ctx context.Context, opts Options) (*Report, error) {
	run := opts.Run
	if err := guardRun(run); err != nil {
		return nil, err
	}
	id := opts.ID
	if id == "" {
		id = defaultID(run.ID)
	}
	if !eval.ValidID(id) {
		return nil, refused("--id %q is not 1 to 64 of [a-z0-9-]", id)
	}
	sc, err := newScenario(run, id, opts)
	if err != nil {
		return nil, err
	}
	final := filepath.Join(opts.Dir, id)
	if _, err := os.Lstat(final); err == nil && !opts.Force {
		return nil, refused("%s already exists: give another --id, or --force to replace it", final)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("eval pack: create %s: %w", opts.Dir, err)
	}
	tmp, err := os.MkdirTemp(opts.Dir, "."+id+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	// Absolute, for the Freezers join frozen.Pack.Path's paths (Dir/...)
	// and Create joins a relative path to Dir once more: with a relative
	// --dir the files landed in a copy of the path below the pack.
	if tmp, err = filepath.Abs(tmp); err != nil {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	defer os.RemoveAll(tmp)
	p := &frozen.Pack{Run: run, Config: opts.Config, Getenv: opts.Getenv, Store: opts.Store, Dir: tmp}
	if err := freezeSources(ctx, p); err != nil {
		return nil, err
	}
	sc.Expect.Evidence = evidence(run, sc.Expect.Outcome)
	if err := writeScenario(p, sc); err != nil {
		return nil, err
	}
	body, err := p.ConfigTOML()
	if err != nil {
		return nil, err
	}
	if err := p.WriteText(eval.ConfigFile, egress.Mask(string(append(header(run), body...)))); err != nil {
		return nil, err
	}
	if lp := eval.LoadPack(tmp); lp.Err != nil {
		return nil, fmt.Errorf("eval pack: the frozen pack does not load: %w", lp.Err)
	}
	// a pack is shared data, readable as its files are (MkdirTemp made it 0700)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	if opts.Force {
		if err := os.RemoveAll(final); err != nil {
			return nil, fmt.Errorf("eval pack: replace %s: %w", final, err)
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	return &Report{Dir: final, ID: id, Frozen: p.Lines()}, nil
}

// guardRun refuses what is no incident to freeze: a run that is not a
// finished diagnosis, or one made on the built-in demo workspace.
func guardRun(run *runstore.RunDetail) error {
	if run.Intent != runrecord.IntentDiagnosis {
		what := run.Intent
		if what == "" {
			what = "not routed"
		}
		return refused("run %s is not a diagnosis (intent %s): only a diagnosis has evidence to freeze", run.ID, what)
	}
	if run.Status == runrecord.RunStatusRunning {
		return refused("run %s is still running", run.ID)
	}
	s, _, err := run.DecodeSettings()
	if err != nil {
		return fmt.Errorf("eval pack: run %s: %w", run.ID, err)
	}
	if s.Demo {
		return refused("run %s was made on the built-in demo workspace (--demo), which is no incident of yours", run.ID)
	}
	return nil
}

// defaultID is the pack id of a run: its ID in the id alphabet ("r_01j…"
// becomes "r-01j…").
func defaultID(runID string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(runID) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// runClock is the time the run saw as now: its recorded clock, else its start.
func runClock(run *runstore.RunDetail) time.Time {
	if !run.Clock.IsZero() {
		return run.Clock.UTC()
	}
	return run.CreatedAt.UTC()
}

// freezeSources has every registered Freezer freeze what the run read
// through its source, in registry order, after refusing a run with
// evidence from a tool no Freezer freezes.
func freezeSources(ctx context.Context, p *frozen.Pack) error {
	if tool := registry.Unfrozen(p.Run.Invocations); tool != "" {
		return refused("run %s holds evidence from %s, which no integration freezes, so no pack was written: it would leave that evidence out", p.Run.ID, tool)
	}
	for _, c := range registry.Composites() {
		reads, err := c.Inner(p)
		if err != nil {
			return err
		}
		p.Reads = append(p.Reads, reads...)
	}
	for _, f := range registry.Freezers() {
		if err := f.Freeze(ctx, p); err != nil {
			return err
		}
	}
	return nil
}
