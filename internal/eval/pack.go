// Package eval measures how well a model diagnoses: it loads incident packs
// (a scenario.toml, a superbiz.toml and their data), runs each through the
// diagnosis path a port supplies, grades the stored run against the pack's
// expectations without a judge model, and sums the grades up
// (docs/EVAL.md, docs/SPEC.md#superbiz-eval).
package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// The files of every pack; a source's own files (metrics.om,
// recorded.json) are its integration's (integration.Replayer).
const (
	ScenarioFile = frozen.ScenarioFile
	ConfigFile   = frozen.ConfigFile
)

// Pack is one incident: what is asked, at which frozen time, and what an
// honest diagnosis concludes. A pack that could not be loaded keeps its
// directory and Err, so it is listed with the error while the rest run.
type Pack struct {
	// Dir is the pack's directory; its data paths resolve against it.
	Dir      string
	ID       string
	Title    string
	Tags     []string
	Now      time.Time
	Question string
	Alert    *Alert
	Expect   Expect
	// Served is what the pack holds for eval to serve, one per source
	// (its metrics.om, its recorded answers), from the registry's
	// Replayers.
	Served []frozen.Served
	// Err is why the pack cannot run (bad TOML, missing file, bad value,
	// unknown key), naming the file and the key.
	Err error
}

// Alert is a pack's [alert]: the firing alert a diagnosis starts from, as
// `diagnose --alert` would receive it from Alertmanager.
type Alert struct {
	Labels      map[string]string
	Annotations map[string]string
	StartsAt    time.Time
}

// Expect is a pack's [expect]: what grading checks.
type Expect struct {
	Outcome      runrecord.Outcome
	RootCauseAny [][]string
	Forbidden    []*regexp.Regexp
	Evidence     []string
	// MaxToolCalls overrides budget.max_tool_calls for this pack; 0 keeps it.
	MaxToolCalls int
}

// scenario is scenario.toml as written; strings are parsed and checked by load.
type scenario struct {
	ID       string   `toml:"id"`
	Title    string   `toml:"title"`
	Tags     []string `toml:"tags"`
	Now      string   `toml:"now"`
	Question string   `toml:"question"`
	Alert    *struct {
		Labels      map[string]string `toml:"labels"`
		Annotations map[string]string `toml:"annotations"`
		StartsAt    string            `toml:"starts_at"`
	} `toml:"alert"`
	Expect *struct {
		Outcome      string     `toml:"outcome"`
		RootCauseAny [][]string `toml:"root_cause_any"`
		Forbidden    []string   `toml:"forbidden"`
		Evidence     []string   `toml:"evidence"`
		MaxToolCalls *int       `toml:"max_tool_calls"`
	} `toml:"expect"`
}

// idShape and evidenceShape compile on first use, keeping start-up free of them.
var (
	idShape       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,64}$`) })
	evidenceShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_]{1,64}(:[^\s]{1,200})?$`) })
)

// ValidID reports whether id is a pack id scenario.toml accepts: 1 to 64
// of [a-z0-9-].
func ValidID(id string) bool { return idShape().MatchString(id) }

// ValidEvidence reports whether ev is an [expect] evidence entry
// scenario.toml accepts: a tool, or tool:source without blanks.
func ValidEvidence(ev string) bool { return evidenceShape().MatchString(ev) }

// packError is a load failure naming the file and the key.
func packError(file, key, format string, args ...any) error {
	return frozen.PackError(file, key, format, args...)
}

// LoadPack reads the pack in dir strictly: an unknown key, a bad value or
// a missing file is the pack's Err, naming the file and the key.
func LoadPack(dir string) *Pack {
	p := &Pack{Dir: dir, ID: filepath.Base(dir)}
	abs, err := filepath.Abs(dir)
	if err != nil {
		p.Err = fmt.Errorf("pack %s: %w", dir, err)
		return p
	}
	p.Dir = abs
	p.Err = p.load()
	return p
}

func (p *Pack) load() error {
	file := filepath.Join(p.Dir, ScenarioFile)
	data, err := readTOML(file)
	if err != nil {
		return err
	}
	var s scenario
	md, err := toml.Decode(string(data), &s)
	if err != nil {
		return packError(file, "", "%v", err)
	}
	for _, k := range md.Undecoded() {
		if !slices.Contains(ownedKeys(), k.String()) {
			return packError(file, k.String(), "unknown key")
		}
	}
	if !ValidID(s.ID) {
		return packError(file, "id", "%q is not 1 to 64 of [a-z0-9-]", s.ID)
	}
	p.ID, p.Title, p.Tags, p.Question = s.ID, strings.TrimSpace(s.Title), s.Tags, strings.TrimSpace(s.Question)
	if p.Title == "" {
		return packError(file, "title", "missing")
	}
	if p.Now, err = time.Parse(time.RFC3339, s.Now); err != nil {
		return packError(file, "now", "%q is not an RFC 3339 time", s.Now)
	}
	if s.Alert != nil {
		a := &Alert{Labels: s.Alert.Labels, Annotations: s.Alert.Annotations}
		if a.Labels["alertname"] == "" {
			return packError(file, "alert.labels", "needs an alertname")
		}
		if a.StartsAt, err = time.Parse(time.RFC3339, s.Alert.StartsAt); err != nil {
			return packError(file, "alert.starts_at", "%q is not an RFC 3339 time", s.Alert.StartsAt)
		}
		p.Alert = a
	}
	if p.Question == "" && p.Alert == nil {
		return packError(file, "question", "missing: a pack needs a question, an [alert] or both")
	}
	if s.Expect == nil {
		return packError(file, "expect", "missing")
	}
	if err := p.loadExpect(file, s); err != nil {
		return err
	}
	if err := walkPack(p.Dir); err != nil {
		return err
	}
	if err := checkConfig(p.Dir); err != nil {
		return err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return packError(file, "", "%v", err)
	}
	for _, r := range registry.Replayers() {
		sv, err := r.Replay(frozen.Replay{Dir: p.Dir, Scenario: raw})
		if err != nil {
			return err
		}
		if sv != nil {
			p.Served = append(p.Served, sv)
		}
	}
	return nil
}

// ownedKeys are the scenario.toml keys the sources own (metrics_sources).
func ownedKeys() []string {
	var out []string
	for _, r := range registry.Replayers() {
		out = append(out, r.Owns().ScenarioKeys...)
	}
	return out
}

// ownedFiles are the pack files the sources serve (metrics.om, recorded.json).
func ownedFiles() []string {
	var out []string
	for _, r := range registry.Replayers() {
		for _, f := range r.Owns().Files {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func (p *Pack) loadExpect(file string, s scenario) error {
	e := s.Expect
	switch o := runrecord.Outcome(e.Outcome); o {
	case runrecord.OutcomeSuccess, runrecord.OutcomeFallback:
		p.Expect.Outcome = o
	default:
		return packError(file, "expect.outcome", "%q is neither SUCCESS nor FALLBACK", e.Outcome)
	}
	for i, g := range e.RootCauseAny {
		if len(g) == 0 || slices.ContainsFunc(g, func(w string) bool { return strings.TrimSpace(w) == "" }) {
			return packError(file, fmt.Sprintf("expect.root_cause_any[%d]", i), "a group needs at least one non-blank word")
		}
	}
	if p.Expect.Outcome == runrecord.OutcomeSuccess && len(e.RootCauseAny) == 0 {
		return packError(file, "expect.root_cause_any", "missing: a SUCCESS pack says which root cause it expects")
	}
	p.Expect.RootCauseAny = e.RootCauseAny
	for i, f := range e.Forbidden {
		re, err := regexp.Compile(f)
		if err != nil {
			return packError(file, fmt.Sprintf("expect.forbidden[%d]", i), "not an RE2 expression: %v", err)
		}
		p.Expect.Forbidden = append(p.Expect.Forbidden, re)
	}
	for i, ev := range e.Evidence {
		if !ValidEvidence(ev) {
			return packError(file, fmt.Sprintf("expect.evidence[%d]", i), "%q is not a tool or tool:source", ev)
		}
	}
	p.Expect.Evidence = e.Evidence
	if e.MaxToolCalls != nil {
		if *e.MaxToolCalls < 1 || *e.MaxToolCalls > 50 {
			return packError(file, "expect.max_tool_calls", "%d is outside 1..50", *e.MaxToolCalls)
		}
		p.Expect.MaxToolCalls = *e.MaxToolCalls
	}
	return nil
}

// checkConfig reads the pack's superbiz.toml through the configuration's
// guards, refuses every table but those a pack may hold (packTables) and
// every path outside the pack, then loads it as superbiz would (strict keys,
// values, referenced paths) without any environment.
func checkConfig(dir string) error {
	file := filepath.Join(dir, ConfigFile)
	data, err := readTOML(file)
	if err != nil {
		return err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return packError(file, "", "%v", err)
	}
	if err := checkTables(file, raw); err != nil {
		return err
	}
	// No environment, but HOME = "/": a "~/…" path resolves outside the pack
	// and is refused here, not only once the runner's HOME expands it.
	cfg, err := LoadConfig(file, func(k string) string { return map[string]string{"HOME": "/"}[k] }, config.Overrides{}, nil)
	if err != nil {
		return err
	}
	return insidePack(dir, cfg)
}

// LoadConfig resolves a pack's superbiz.toml with the eval's environment
// and overrides, exactly as superbiz resolves --config FILE, on the [model]
// of modelOf (the eval command's resolved configuration) when it is set.
func LoadConfig(file string, getenv func(string) string, ov config.Overrides, modelOf *config.Config) (*config.Config, error) {
	cfg, err := registry.Load(config.LoadOptions{ConfigPath: file, WorkDir: filepath.Dir(file), Getenv: getenv, Overrides: ov, ModelOf: modelOf})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return cfg, nil
}

// LoadSuite reads the packs of a suite directory, one level deep: every
// subdirectory holding a scenario.toml (or the directory itself when it is
// one pack). A duplicate id is the later pack's Err.
func LoadSuite(dir string) ([]*Pack, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("read the suite %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ScenarioFile)); err == nil {
		return []*Pack{LoadPack(dir)}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the suite %s: %w", dir, err)
	}
	var packs []*Pack
	seen := map[string]string{}
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(sub, ScenarioFile)); err != nil {
			continue
		}
		p := LoadPack(sub)
		if p.Err == nil {
			if first, dup := seen[p.ID]; dup {
				p.Err = packError(filepath.Join(sub, ScenarioFile), "id", "%q is already the id of %s", p.ID, first)
			}
			seen[p.ID] = sub
		}
		packs = append(packs, p)
	}
	if len(packs) == 0 {
		return nil, fmt.Errorf("the suite %s holds no pack (no */%s)", dir, ScenarioFile)
	}
	return packs, nil
}

// Match says whether the pack is selected by filter: its id or one of its
// tags; "" selects every pack.
func (p *Pack) Match(filter string) bool {
	return filter == "" || p.ID == filter || slices.Contains(p.Tags, filter)
}
