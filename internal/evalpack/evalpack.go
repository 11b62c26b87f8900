// Package evalpack freezes a stored diagnosis into an eval regression pack
// (`superbiz eval pack`, docs/EVAL.md#freeze-a-stored-incident): the run's
// question, clock and alert become scenario.toml, and the evidence it read
// (log lines around its windows, the runbooks, metrics samples, SQLite
// files, recorded MySQL and PostgreSQL answers) is copied into the pack,
// every text through pkg/redact, with paths of the pack's own.
package evalpack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Margin is how much wider than the windows the run queried the frozen
// logs and metrics are: from Margin before the earliest to Margin after
// the latest, so that a model investigating differently still finds data.
const Margin = 10 * time.Minute

// ErrRefused marks a run or a destination eval pack will not freeze: not a
// diagnosis, the demo workspace, a pack that already exists, an outcome or
// root cause it cannot write. The command exits 2 with the reason.
var ErrRefused = errors.New("eval pack refused")

// refused is an ErrRefused with its reason.
func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

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

	// maxWhole overrides MaxWholeRunbooks (tests); 0 keeps it.
	maxWhole int64
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

// pack is the pack being written into dir.
type pack struct {
	opts Options
	dir  string
	cfg  packConfig
	rec  eval.Recording
	// metricsSources are the metrics sources the run read, which eval
	// serves metrics.om as.
	metricsSources []string
	report         *Report
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
	defer os.RemoveAll(tmp)
	rep := &Report{Dir: final, ID: id, Frozen: []string{}}
	p := &pack{opts: opts, dir: tmp, report: rep}
	if err := p.freezeSources(ctx); err != nil {
		return nil, err
	}
	sc.Expect.Evidence = evidence(run, sc.Expect.Outcome)
	sc.MetricsSources = p.metricsSources
	if err := p.writeTOML(eval.ScenarioFile, sc); err != nil {
		return nil, err
	}
	if err := p.writeTOML(eval.ConfigFile, p.cfg); err != nil {
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
	return rep, nil
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

// freezeSources freezes every kind of source the run read.
func (p *pack) freezeSources(ctx context.Context) error {
	for _, f := range []func(context.Context) error{p.freezeMetrics, p.freezeLogs, p.freezeRunbooks, p.freezeDatabases, p.freezeSkills} {
		if err := f(ctx); err != nil {
			return err
		}
	}
	return nil
}

// reads is every completed evidence call of tool in the run, in order.
func reads(run *runstore.RunDetail, tool string) []runrecord.Invocation {
	var out []runrecord.Invocation
	for _, inv := range run.Invocations {
		if inv.Tool == tool && inv.Ready() && inv.EvidenceStatus != tools.StatusError {
			out = append(out, inv)
		}
	}
	return out
}

// sourcesRead are the sources (tool:source, the source part) the calls read.
func sourcesRead(calls []runrecord.Invocation) []string {
	var out []string
	for _, inv := range calls {
		for _, s := range registry.SourcesOf(inv.Tool, inv.Input, inv.Observation) {
			if _, name, ok := strings.Cut(s, ":"); ok && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// rel is path relative to the pack, slash-separated, as superbiz.toml names it.
func (p *pack) rel(path string) string {
	r, err := filepath.Rel(p.dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// frozen adds a line to the report.
func (p *pack) frozen(format string, args ...any) {
	p.report.Frozen = append(p.report.Frozen, fmt.Sprintf(format, args...))
}
