package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/integration/databases"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Job is one attempt of a pack, ready for the diagnosis path: the pack's
// configuration resolved with the eval's model flags, its own run store,
// the clock frozen at the pack's now, its databases and metrics source.
type Job struct {
	Pack   *Pack
	Repeat int
	Config *config.Config
	// Wrap, for a pack whose recorded answers stand for a source (the
	// MySQL and PostgreSQL statements of the run it was frozen from), gives
	// the attempt's tools with those answering: the runner wraps its tools
	// with it. nil for other packs.
	Wrap func([]tools.Adapter) []tools.Adapter
}

// Runner runs one diagnosis of job exactly as `superbiz diagnose` (or
// `diagnose --alert`, for a pack with an [alert]) would, storing the run
// in job.Config.DBPath, and returns the run's ID.
type Runner func(ctx context.Context, job Job) (runID string, err error)

// ErrModelUnavailable stops an eval whose model server failed a run: no
// later pack could be graded either.
var ErrModelUnavailable = errors.New("eval stopped: the model server could not be reached, or failed while answering")

// Options are the eval command's settings.
type Options struct {
	Repeat   int // K, at least 1
	Parallel int // packs run at once, at least 1
	// RecordDB, when set, is the run store every run is kept in (--record);
	// otherwise each attempt gets a temporary store that is removed.
	RecordDB string
	// Getenv and Overrides resolve each pack's configuration.
	Getenv    func(string) string
	Overrides config.Overrides
	// Model is the eval command's resolved configuration, whose [model]
	// (provider, URL, name, with what set each) every pack runs on.
	Model *config.Config
	// Progress is told after each attempt; nil ignores it.
	Progress func(Progress)
	// Version is the superbiz version the results say ran them.
	Version string
}

// Progress is one line of the stderr progress: the pack, the repeat and the
// running score.
type Progress struct {
	Pack           string
	Repeat, Of     int
	Pass           bool
	Passed, Graded int // attempts so far
}

// Run runs every pack Repeat times through run and grades each stored run.
// A pack that failed to load, or whose attempt could not run, carries its
// error; a metrics pack without promtool and prometheus is skipped with
// the reason. The returned error is ErrModelUnavailable or a cancellation.
func Run(ctx context.Context, packs []*Pack, opts Options, run Runner) (*Results, error) {
	started := time.Now()
	opts.Repeat, opts.Parallel = max(opts.Repeat, 1), max(opts.Parallel, 1)
	// The model the runs used, as the first of them resolved and recorded it.
	var (
		modelOnce sync.Once
		model     ModelInfo
	)
	inner := run
	run = func(ctx context.Context, job Job) (string, error) {
		modelOnce.Do(func() { model = modelInfo(job.Config.Model) })
		return inner(ctx, job)
	}
	if opts.RecordDB != "" {
		// One store holds one knowledge index: packs take turns in it.
		opts.Parallel = 1
	}
	res := &Results{Packs: make([]PackResult, len(packs))}
	attempts := make([][]Attempt, len(packs))
	var (
		mu       sync.Mutex
		score    Progress
		firstErr error
	)
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i, p := range packs {
		res.Packs[i] = newPackResult(p)
		if p.Err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			pr := &res.Packs[i]
			err := runPack(ctx, p, opts, run, func(a Attempt, rep int) {
				mu.Lock()
				defer mu.Unlock()
				attempts[i] = append(attempts[i], a)
				score.Pack, score.Repeat, score.Of = p.ID, rep, opts.Repeat
				score.Pass = len(Grade(p.Expect, a)) == 0
				score.Graded++
				if score.Pass {
					score.Passed++
				}
				if opts.Progress != nil {
					opts.Progress(score)
				}
			}, pr)
			if err != nil && (errors.Is(err, ErrModelUnavailable) || ctx.Err() != nil) {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("eval stopped: %w", err)
	}
	for i, p := range packs {
		if p.Err == nil && !res.Packs[i].Skipped && res.Packs[i].Error == "" {
			res.Packs[i].grade(p, attempts[i])
		}
	}
	res.Summary = summarize(packs, res.Packs, attempts)
	if model.Name == "" {
		model = unranModel(packs, opts)
	}
	res.Summary.Model, res.Summary.SuperbizVersion, res.Summary.StartedAt = model, opts.Version, started.UTC().Format(time.RFC3339)
	return res, firstErr
}

// unranModel is the model the runs would have used when none ran: the first
// loadable pack's configuration resolved as an attempt resolves it.
func unranModel(packs []*Pack, opts Options) ModelInfo {
	for _, p := range packs {
		if p.Err != nil {
			continue
		}
		if cfg, err := LoadConfig(filepath.Join(p.Dir, ConfigFile), opts.Getenv, opts.Overrides, opts.Model); err == nil {
			return modelInfo(cfg.Model)
		}
	}
	return ModelInfo{}
}

// runPack runs the repeats of one pack in its own workspace, recording a
// skip or an error in pr.
func runPack(ctx context.Context, p *Pack, opts Options, run Runner, done func(Attempt, int), pr *PackResult) error {
	ws, err := os.MkdirTemp("", "superbiz-eval-"+p.ID+"-")
	if err != nil {
		pr.Error = fmt.Sprintf("create the workspace: %v", err)
		return err
	}
	defer os.RemoveAll(ws)
	for _, sv := range p.Served {
		if why := sv.Missing(); why != "" {
			pr.Skipped, pr.SkipReason = true, why
			return nil
		}
	}
	var servers []frozen.Server
	defer func() {
		for _, s := range slices.Backward(servers) {
			if err := s.Stop(); err != nil && pr.Error == "" {
				pr.Error = err.Error()
			}
		}
	}()
	for i, sv := range p.Served {
		work := filepath.Join(ws, fmt.Sprintf("served%d", i))
		if err := os.MkdirAll(work, 0o700); err != nil {
			pr.Error = fmt.Sprintf("create the workspace: %v", err)
			return err
		}
		s, err := sv.Start(ctx, work)
		if err != nil {
			pr.Error = err.Error()
			return err
		}
		servers = append(servers, s)
	}
	for rep := 1; rep <= opts.Repeat; rep++ {
		a, err := attempt(ctx, p, opts, run, filepath.Join(ws, fmt.Sprintf("r%d", rep)), servers, rep)
		if err != nil {
			pr.Error = err.Error()
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if a.ModelUnavailable {
			// Not graded: a server problem is not the model failing the pack.
			// The run is named only where it is kept (--record); otherwise it
			// lived in the pack's temporary store, which runs show never sees.
			if opts.RecordDB != "" {
				return fmt.Errorf("%w (pack %s, run %s)", ErrModelUnavailable, p.ID, a.RunID)
			}
			return fmt.Errorf("%w (pack %s)", ErrModelUnavailable, p.ID)
		}
		done(a, rep)
	}
	return nil
}

// attempt prepares one repeat's configuration in dir, runs it and reads
// the stored run back.
func attempt(ctx context.Context, p *Pack, opts Options, run Runner, dir string, servers []frozen.Server, rep int) (Attempt, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Attempt{}, fmt.Errorf("create the workspace: %w", err)
	}
	dbPath := cmpOr(opts.RecordDB, filepath.Join(dir, "runs.db"))
	ov := opts.Overrides
	ov.DBPath = &dbPath
	if p.Expect.MaxToolCalls > 0 {
		ov.MaxToolCalls = &p.Expect.MaxToolCalls
	}
	cfg, err := LoadConfig(filepath.Join(p.Dir, ConfigFile), opts.Getenv, ov, opts.Model)
	if err != nil {
		return Attempt{}, err
	}
	if err := insidePack(p.Dir, cfg); err != nil {
		return Attempt{}, err
	}
	cfg.Now = p.Now
	if err := loadScripts(ctx, cfg, dir); err != nil {
		return Attempt{}, err
	}
	var wrap func([]tools.Adapter) []tools.Adapter
	for _, s := range servers {
		if err := s.Configure(cfg); err != nil {
			return Attempt{}, err
		}
		if w, ok := s.(frozen.Wrapper); ok {
			inner := wrap
			wrap = func(a []tools.Adapter) []tools.Adapter {
				if inner != nil {
					a = inner(a)
				}
				return w.Wrap(a)
			}
		}
	}
	runID, err := run(ctx, Job{Pack: p, Repeat: rep, Config: cfg, Wrap: wrap})
	if err != nil {
		return Attempt{}, fmt.Errorf("run: %w", err)
	}
	return ReadAttempt(ctx, dbPath, runID)
}

// ReadAttempt reads a stored run back from the store at path for grading.
func ReadAttempt(ctx context.Context, path, runID string) (Attempt, error) {
	st, err := runstore.OpenReadOnly(ctx, path)
	if err != nil {
		return Attempt{}, fmt.Errorf("open the run store %s: %w", path, err)
	}
	defer st.Close()
	d, err := st.GetRun(ctx, runID)
	if err != nil {
		return Attempt{}, err
	}
	return FromRun(d)
}

// loadScripts turns every SQLite database whose DSN is a .sql script into
// a fresh database file in dir, loaded with that script.
func loadScripts(ctx context.Context, cfg *config.Config, dir string) error {
	dbs := slices.Clone(databases.Entries(cfg))
	defer databases.SetEntries(cfg, dbs...)
	for i, d := range dbs {
		script := d.DSN.Reveal()
		if d.Driver != sqlquery.DriverSQLite || !strings.HasSuffix(script, ".sql") {
			continue
		}
		file := filepath.Join(dir, d.Name+".db")
		if err := loadScript(ctx, script, file); err != nil {
			return fmt.Errorf("databases %s: %w", d.Name, err)
		}
		var err error
		if dbs[i].DSN, err = sqlquery.NewDSN(sqlquery.DriverSQLite, file); err != nil {
			return fmt.Errorf("databases %s: %w", d.Name, err)
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// newPackResult is a pack's result before it runs.
func newPackResult(p *Pack) PackResult {
	r := PackResult{ID: p.ID, Title: p.Title, Tags: p.Tags, ExpectedOutcome: string(p.Expect.Outcome), FailedChecks: []FailedCheck{}, RunIDs: []string{}}
	if r.Tags == nil {
		r.Tags = []string{}
	}
	if p.Err != nil {
		r.Error = p.Err.Error()
	}
	return r
}

// grade fills the result of a pack that ran from its attempts.
func (r *PackResult) grade(p *Pack, as []Attempt) {
	r.Repeats = len(as)
	r.Pass = len(as) > 0
	var outcomes []string
	var tools, models, tokens []int
	var ms []int64
	for i, a := range as {
		r.RunIDs = append(r.RunIDs, a.RunID)
		r.NotRecorded += a.NotRecorded
		if !slices.Contains(outcomes, a.Outcome) {
			outcomes = append(outcomes, a.Outcome)
		}
		for _, f := range Grade(p.Expect, a) {
			r.Pass = false
			if len(as) > 1 {
				f.Why = fmt.Sprintf("repeat %d: %s", i+1, f.Why)
			}
			r.FailedChecks = append(r.FailedChecks, f)
		}
		tools, models, tokens, ms = append(tools, a.ToolCalls), append(models, a.ModelCalls), append(tokens, a.Tokens), append(ms, a.WallMS)
	}
	r.Outcome = strings.Join(outcomes, ",")
	r.ToolCalls, r.ModelCalls, r.Tokens, r.WallMS = median(tools), median(models), median(tokens), median(ms)
}

// median is the middle value (the lower middle of an even count), 0 for none.
func median[T int | int64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// Regrade grades recorded runs again, with no model: each graded pack of
// prev is matched by id to a pack of packs and its runs are read back from
// the store at path. Skipped and errored packs keep their result, and the
// summary keeps what prev measured (model, version, start).
func Regrade(ctx context.Context, prev *Results, packs []*Pack, path string) (*Results, error) {
	byID := map[string]*Pack{}
	for _, p := range packs {
		if p.Err == nil {
			byID[p.ID] = p
		}
	}
	out := &Results{Packs: make([]PackResult, len(prev.Packs))}
	used := make([]*Pack, len(prev.Packs))
	attempts := make([][]Attempt, len(prev.Packs))
	for i, old := range prev.Packs {
		p, ok := byID[old.ID]
		if !ok || old.Skipped || old.Error != "" {
			out.Packs[i] = old
			if !ok && !old.Skipped && old.Error == "" {
				out.Packs[i].Error = fmt.Sprintf("no pack %q in the suite", old.ID)
			}
			used[i] = &Pack{ID: old.ID, Err: errors.New(out.Packs[i].Error)}
			if old.Skipped {
				used[i] = &Pack{ID: old.ID, Expect: Expect{Outcome: runrecord.Outcome(old.ExpectedOutcome)}}
			}
			continue
		}
		used[i] = p
		out.Packs[i] = newPackResult(p)
		for _, id := range old.RunIDs {
			a, err := ReadAttempt(ctx, path, id)
			if err != nil {
				return nil, fmt.Errorf("pack %s: %w", old.ID, err)
			}
			attempts[i] = append(attempts[i], a)
		}
		out.Packs[i].grade(p, attempts[i])
	}
	out.Summary = summarize(used, out.Packs, attempts)
	out.Summary.Model, out.Summary.SuperbizVersion, out.Summary.StartedAt = prev.Summary.Model, prev.Summary.SuperbizVersion, prev.Summary.StartedAt
	return out, nil
}
