// Package frozen is the seam between eval packs and the integrations. An
// integration whose evidence can be frozen implements
// integration.Freezer: `eval pack` hands it a Pack, the pack being written,
// through which it reads the run's calls of its tools (decoded into the
// tool's own result type) and writes its files, its superbiz.toml tables and
// its scenario.toml keys. An integration whose frozen evidence needs serving
// in eval (a metrics server, recorded answers) implements
// integration.Replayer: eval hands it a Replay and gets back a Served that
// starts a Server for each pack. A new source joins both by implementing
// them in its own folder (docs/ARCHITECTURE.md, "Add a tool").
package frozen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The files every pack holds, which eval reads (internal/eval).
const (
	ScenarioFile = "scenario.toml"
	ConfigFile   = "superbiz.toml"
)

// Margin is how much wider than the windows the run queried the frozen
// logs and metrics are: from Margin before the earliest to Margin after
// the latest, so that a model investigating differently still finds data.
const Margin = 10 * time.Minute

// ErrRefused marks a run or a destination eval pack will not freeze: not a
// diagnosis, the demo workspace, a pack that already exists, an outcome or
// root cause it cannot write, a source the configuration no longer has.
// The command exits 2 with the reason.
var ErrRefused = errors.New("eval pack refused")

// Refused is an ErrRefused with its reason.
func Refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// UnavailableError is a server that could not give the evidence to freeze:
// nothing is written, the command exits 4 and names the server.
type UnavailableError struct {
	// Kind and Source name the server ("metrics", "prom (http://…)").
	Kind, Source string
	Err          error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("eval pack: the %s source %s could not give the samples to freeze, so no pack was written: %v", e.Kind, e.Source, e.Err)
}

// Unwrap gives the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Pack is the pack being written: the run it freezes, the configuration
// the run was made with, and the folder its files go into. A Freezer
// writes through it only.
type Pack struct {
	// Run is the stored run, read in full.
	Run *runstore.RunDetail
	// Config is the configuration of the workspace the run was made on.
	Config *config.Config
	// Getenv reads the environment (credentials a source names, TZ).
	Getenv func(string) string
	// Store is the run store the run was read from (nil: none to search).
	Store *runstore.Store
	// Dir is the pack's (temporary) folder.
	Dir string
	// Reads are the reads the run's composite calls made inside them (a
	// build_timeline call's query_logs and query_metrics), as calls of the
	// tools they went to (integration.Composite): Calls lists them with the
	// run's own, so each source freezes what they read too.
	Reads []runrecord.Invocation

	tables   []table
	scenario map[string]any
	lines    []string
}

// table is one superbiz.toml table of the pack, in the order added.
type table struct {
	key   string
	value any   // a single table
	list  []any // an array of tables
}

// Calls are the run's completed calls of tool that did not end in error,
// in order: what a source freezes.
func (p *Pack) Calls(tool string) []runrecord.Invocation {
	var out []runrecord.Invocation
	for _, inv := range append(slices.Clone(p.Run.Invocations), p.Reads...) {
		if inv.Tool == tool && Evidence(inv) {
			out = append(out, inv)
		}
	}
	return out
}

// Read is a read the composite call of made inside it, as a completed
// call of tool (its n-th) whose observation's result is result: the
// members of the tool's own result type its Freezer reads (the source and
// the window).
func Read(of runrecord.Invocation, n int, tool string, result any) (runrecord.Invocation, error) {
	obs, err := json.Marshal(map[string]any{"evidence_status": tools.EvidenceFound, "result": result})
	if err != nil {
		return runrecord.Invocation{}, fmt.Errorf("eval pack: call %s: its read of %s: %w", of.ToolCallID, tool, err)
	}
	return runrecord.Invocation{ToolCallID: fmt.Sprintf("%s.%d", of.ToolCallID, n), Tool: tool, Kind: runrecord.KindEvidence,
		Status: runrecord.InvocationCompleted, EvidenceStatus: tools.EvidenceFound, Observation: obs, StartedAt: of.StartedAt}, nil
}

// Evidence reports whether a stored call holds evidence a pack must
// freeze: it completed and did not end in error.
func Evidence(inv runrecord.Invocation) bool {
	return inv.Ready() && inv.EvidenceStatus != tools.StatusError
}

// Result decodes a stored call's observation result into T, the tool's own
// result type; ok is false for an observation without one (discarded).
func Result[T any](inv runrecord.Invocation) (T, bool, error) {
	var obs struct {
		Result *T `json:"result"`
	}
	var zero T
	if err := json.Unmarshal(inv.Observation, &obs); err != nil {
		return zero, false, fmt.Errorf("eval pack: call %s (%s): the stored observation does not read: %w", inv.ToolCallID, inv.Tool, err)
	}
	if obs.Result == nil {
		return zero, false, nil
	}
	return *obs.Result, true, nil
}

// Gone is the refusal of a source the run read that the configuration no
// longer has: kind and name say which ("log source", "app").
func (p *Pack) Gone(kind, name string) error {
	file := p.Config.File
	if file == "" {
		file = "defaults"
	}
	return Refused("the run read the %s %q, which the configuration (%s) no longer has: freeze with the configuration the run was made with (--config)", kind, name, file)
}

// Path is a path inside the pack.
func (p *Pack) Path(elem ...string) string {
	return filepath.Join(append([]string{p.Dir}, elem...)...)
}

// Rel is path relative to the pack, slash-separated, as superbiz.toml names it.
func (p *Pack) Rel(path string) string {
	r, err := filepath.Rel(p.Dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// WriteText writes a new file of the pack at path (inside Dir), creating
// its folder: the text passed the egress policy, as every byte of a pack
// must (pkg/egress).
func (p *Pack) WriteText(path string, t egress.Text) error {
	f, err := p.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Write(t), f.Close())
}

// WriteJSON writes a new JSON file of the pack at path (inside Dir), passed
// through the egress policy.
func (p *Pack) WriteJSON(path string, j egress.JSON) error {
	f, err := p.Create(path)
	if err != nil {
		return err
	}
	_, werr := f.w.Write(j.Bytes())
	return errors.Join(werr, f.Close())
}

// File is a pack file being written, a text that passed the egress policy
// at a time, so a large file streams through bounded memory.
type File struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

// Create creates the new file of the pack at path (inside Dir), and its folder.
func (p *Pack) Create(path string) (*File, error) {
	if !filepath.IsAbs(path) {
		path = p.Path(path)
	}
	if !within(p.Dir, path) {
		return nil, fmt.Errorf("eval pack: %s lies outside the pack", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("eval pack: %w", err)
	}
	return &File{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Write adds t to the file.
func (f *File) Write(t egress.Text) error {
	if _, err := f.w.WriteString(t.String()); err != nil {
		return fmt.Errorf("eval pack: write %s: %w", f.path, err)
	}
	return nil
}

// Close flushes and closes the file.
func (f *File) Close() error {
	err := f.w.Flush()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("eval pack: write %s: %w", f.path, err)
	}
	return nil
}

// within reports whether path lies in dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Table sets the superbiz.toml table key ([knowledge]) to v.
func (p *Pack) Table(key string, v any) {
	if i := slices.IndexFunc(p.tables, func(t table) bool { return t.key == key }); i >= 0 {
		p.tables[i].value = v
		return
	}
	p.tables = append(p.tables, table{key: key, value: v})
}

// Append adds v to the superbiz.toml array of tables key ([[logs]]).
func (p *Pack) Append(key string, v any) {
	if i := slices.IndexFunc(p.tables, func(t table) bool { return t.key == key }); i >= 0 {
		p.tables[i].list = append(p.tables[i].list, v)
		return
	}
	p.tables = append(p.tables, table{key: key, list: []any{v}})
}

// Scenario sets the scenario.toml key of a source's own (metrics_sources).
func (p *Pack) Scenario(key string, v any) {
	if p.scenario == nil {
		p.scenario = map[string]any{}
	}
	p.scenario[key] = v
}

// ScenarioKeys are the keys the sources set, for scenario.toml.
func (p *Pack) ScenarioKeys() map[string]any { return p.scenario }

// Frozen adds a line to the report: what a source contributed.
func (p *Pack) Frozen(format string, args ...any) {
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}

// Lines are the report's lines, in the order added.
func (p *Pack) Lines() []string { return append([]string{}, p.lines...) }

// ConfigTOML is the pack's superbiz.toml body: the tables in the order the
// sources added them, as written (the caller passes it through the policy).
func (p *Pack) ConfigTOML() ([]byte, error) {
	var b bytes.Buffer
	for _, t := range p.tables {
		v := t.value
		if t.list != nil {
			v = t.list
		}
		if err := toml.NewEncoder(&b).Encode(map[string]any{t.key: v}); err != nil {
			return nil, fmt.Errorf("eval pack: encode [%s]: %w", t.key, err)
		}
	}
	return b.Bytes(), nil
}

// Span is a time range: the union of the windows a source was queried over.
type Span struct{ Lo, Hi time.Time }

// Add widens the span to hold [lo, hi].
func (s *Span) Add(lo, hi time.Time) {
	if s.Lo.IsZero() || lo.Before(s.Lo) {
		s.Lo = lo
	}
	if hi.After(s.Hi) {
		s.Hi = hi
	}
}

// Widened is the span Margin wider on each side.
func (s Span) Widened() (lo, hi time.Time) { return s.Lo.Add(-Margin), s.Hi.Add(Margin) }

// Replay is what eval gives a Replayer of one pack it loads.
type Replay struct {
	// Dir is the pack's folder (absolute).
	Dir string
	// Scenario is scenario.toml decoded, for the keys the source owns.
	Scenario map[string]any
}

// PackError is a pack failure naming the file and the key ("" for none).
func PackError(file, key, format string, args ...any) error {
	if key == "" {
		return fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s: %s", file, key, fmt.Sprintf(format, args...))
}

// Owned are the parts of a pack a Replayer owns: files beside
// scenario.toml and superbiz.toml, and scenario.toml keys.
type Owned struct {
	Files        []string
	ScenarioKeys []string
}

// Served is what a pack holds of one source, ready to be served.
type Served interface {
	// Missing says why this machine cannot serve it ("" when it can); the
	// pack is then skipped with the reason.
	Missing() string
	// Start starts serving it to the attempts of one pack, with work as a
	// folder of its own (removed after the pack).
	Start(ctx context.Context, work string) (Server, error)
}

// Server serves a pack's source to each attempt until Stop.
type Server interface {
	// Configure adds the served source to one attempt's configuration.
	Configure(cfg *config.Config) error
	// Stop ends serving; an error is the pack's.
	Stop() error
}

// Wrapper is a Server whose answers replace a tool's: the attempt's tools
// are wrapped before the run.
type Wrapper interface {
	Wrap(adapters []tools.Adapter) []tools.Adapter
}
