// Package conformance is the suite every evidence source runs against
// itself stood up for real (restic's internal/backend/test is the model):
// the source's folder has a test that calls Run with its Source and a
// fixture function that starts its server (or writes its files) and says
// which calls read evidence and which read nothing; internal/registry's
// TestEverySourceRunsTheSuite fails for a registered source whose folder
// has none. The checks are what every source owes through the same paths
// a command takes: doctor's line, `tools list`, a call through the
// boundary (and what eval's grader says it read), an unknown source, an empty window, the observation bound, a
// cancelled call, bounded durations in its table, and the eval pack round
// trip: the call stored, frozen by `eval pack` and served back by eval.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/evalpack"
	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/workspace"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Fixture is one source stood up for the suite.
type Fixture struct {
	// Config is the TOML configuring the source against what the fixture
	// started or wrote (one entry of its table).
	Config string
	// Env are the variables its credentials are read from.
	Env map[string]string
	// Call is a tool input (no envelope) that reads evidence holding Marker.
	Call json.RawMessage
	// Marker is a text the evidence Call reads holds and Empty's does not.
	Marker string
	// Empty is a tool input over a window (or a question) holding nothing:
	// an honest absence, served, never an error.
	Empty json.RawMessage
	// NameKey is the input member naming the entry ("source", "database");
	// "" for a tool whose input names none (lookup_knowledge).
	NameKey string
}

// UnknownName is the entry name no fixture configures.
const UnknownName = "no_such_source_x"

// Run stands the source up with stand and runs every check on it, each a
// subtest. A fixture that cannot start its server skips or, under CI,
// fails (internal/testenv), inside stand.
func Run(t *testing.T, s integration.Source, stand func(t *testing.T) Fixture) {
	t.Helper()
	if s.Tool() == "" {
		t.Fatalf("source %s adds no tool: the suite is for evidence sources", s.Name())
	}
	f := stand(t)
	cfg := load(t, f)
	getenv := func(k string) string { return f.Env[k] }
	ctx := context.Background()

	t.Run("doctor", func(t *testing.T) {
		results := s.Doctor(ctx, cfg, integration.Env{Getenv: getenv, Warn: func(string) {}})
		if len(results) == 0 {
			t.Fatal("doctor has no line for the configured source")
		}
		for _, r := range results {
			if r.Status == doctor.Fail {
				t.Errorf("doctor %s: %s (%s)", r.Check, r.Detail, r.Hint)
			}
		}
	})
	t.Run("tools list", func(t *testing.T) {
		defs, err := registry.Declared(ctx, cfg, integration.Env{Getenv: getenv})
		if err != nil {
			t.Fatalf("Declared: %v", err)
		}
		if !slices.ContainsFunc(defs, func(d model.Tool) bool { return d.Name == s.Tool() }) {
			t.Errorf("tools list lacks %s", s.Tool())
		}
	})

	w, err := workspace.Open(ctx, cfg, workspace.Env{Getenv: getenv, Warn: func(string) {}})
	if err != nil {
		t.Fatalf("open the workspace: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("close the workspace: %v", err)
		}
	})
	call := func(ctx context.Context, in json.RawMessage) (string, error) {
		t.Helper()
		res, err := w.CallTool(ctx, s.Tool(), in, workspace.NoAudit)
		if err != nil {
			t.Fatalf("call %s: %v", s.Tool(), err)
		}
		return string(res.Observation), res.Verdict(ctx)
	}

	t.Run("call through the boundary", func(t *testing.T) {
		obs, err := call(ctx, f.Call)
		if err != nil {
			t.Fatalf("%s %s: %v", s.Tool(), f.Call, err)
		}
		if !strings.Contains(obs, f.Marker) {
			t.Errorf("the evidence lacks the fixture's %q: %s", f.Marker, clip(obs))
		}
		if n := len(obs); n > cfg.Limits.Observation {
			t.Errorf("the observation is %d bytes, over limits.observation %d", n, cfg.Limits.Observation)
		}
		// eval's evidence grader names what the call read (Reads)
		read := registry.SourcesOf(s.Tool(), f.Call, json.RawMessage(obs))
		if want := named(f); want != "" && !slices.Contains(read, s.Tool()+":"+want) {
			t.Errorf("SourcesOf(%s) = %q, want it to name %s:%s", f.Call, read, s.Tool(), want)
		} else if len(read) < 2 || read[0] != s.Tool() {
			t.Errorf("SourcesOf(%s) = %q, want the tool, then what the call read", f.Call, read)
		}
	})
	t.Run("unknown source", func(t *testing.T) {
		if f.NameKey == "" {
			t.Skip("the tool's input names no source")
		}
		var in map[string]any
		if err := json.Unmarshal(f.Call, &in); err != nil {
			t.Fatal(err)
		}
		in[f.NameKey] = UnknownName
		raw, _ := json.Marshal(in)
		_, err := call(ctx, raw)
		var ee *exitcode.Error
		if !errors.As(err, &ee) || ee.Code != exitcode.Usage || !strings.Contains(err.Error(), UnknownName) {
			t.Errorf("a call naming %s %q: %v, want a refused input (exit 2) naming it", f.NameKey, UnknownName, err)
		}
	})
	t.Run("empty window", func(t *testing.T) {
		obs, err := call(ctx, f.Empty)
		if err != nil {
			t.Fatalf("%s %s: %v, want an honest absence", s.Tool(), f.Empty, err)
		}
		if strings.Contains(obs, f.Marker) {
			t.Errorf("the empty window holds the fixture's %q: %s", f.Marker, clip(obs))
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := call(cctx, f.Call)
		var ee *exitcode.Error
		if !errors.As(err, &ee) || ee.Code != exitcode.Cancelled {
			t.Errorf("a cancelled call: %v, want exit %d", err, exitcode.Cancelled)
		}
	})
	t.Run("eval pack round trip", func(t *testing.T) {
		roundTrip(t, w, s, f, getenv)
	})
	t.Run("bounded durations", func(t *testing.T) {
		table := ""
		if c, ok := s.(integration.Configured); ok {
			table = c.Config().Table
		}
		for _, k := range config.KeySpecs(registry.Parts()...) {
			if strings.HasPrefix(k.Key, table+".") || strings.HasPrefix(k.Key, table+"[].") {
				if k.Type.String() == "time.Duration" && (k.Min == "" || k.Max == "") {
					t.Errorf("%s is a duration without min and max", k.Key)
				}
			}
		}
	})
}

// roundTrip stores the fixture's call as a run would (audited), freezes
// that run with `eval pack` (evalpack.Freeze: every registered Freezer, a
// tool none freezes refused), loads the pack with eval's own loader, starts
// what it serves and configures a fresh workspace from its superbiz.toml
// the way an eval attempt does, then makes the same call there: the
// evidence read holds the marker again, with the source's own server or
// files out of reach of nothing but the pack.
func roundTrip(t *testing.T, w *workspace.Workspace, s integration.Source, f Fixture, getenv func(string) string) {
	t.Helper()
	ctx := context.Background()
	res, err := w.CallTool(ctx, s.Tool(), f.Call, workspace.Audit{})
	if err != nil || res.RunID == "" {
		t.Fatalf("an audited %s call: run %q, %v", s.Tool(), res.RunID, err)
	}
	run, err := w.Store.GetRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	// eval pack freezes a finished diagnosis: the stored call is its evidence
	run.Intent, run.ReleaseOutcome, run.Query = runrecord.IntentDiagnosis, runrecord.OutcomeFallback, "conformance round trip of "+s.Tool()
	suite := t.TempDir()
	rep, err := evalpack.Freeze(ctx, evalpack.Options{Run: run, Config: w.Config, Dir: suite, ID: "conformance", Getenv: getenv, Store: w.Store})
	if err != nil {
		hint := ""
		if strings.Contains(err.Error(), "a pack may hold only") {
			hint = " (a Freeze that appends its own table to the pack's superbiz.toml declares it: integration.Packed, as playbooks/freeze.go)"
		}
		t.Fatalf("eval pack of a run that read %s: %v%s", s.Tool(), err, hint)
	}
	p := eval.LoadPack(rep.Dir)
	if p.Err != nil {
		t.Fatalf("the frozen pack does not load: %v", p.Err)
	}
	work := t.TempDir()
	db := filepath.Join(work, "runs.db")
	cfg, err := eval.LoadConfig(filepath.Join(p.Dir, eval.ConfigFile), func(string) string { return "" }, config.Overrides{DBPath: &db}, nil)
	if err != nil {
		t.Fatalf("the pack's configuration: %v", err)
	}
	cfg.Now = p.Now
	var wrappers []frozen.Wrapper
	for i, sv := range p.Served {
		if why := sv.Missing(); why != "" {
			t.Skipf("the pack's %T cannot be served here: %s", sv, why)
		}
		srv, err := sv.Start(ctx, filepath.Join(work, fmt.Sprintf("served%d", i)))
		if err != nil {
			t.Fatalf("serve the pack: %v", err)
		}
		t.Cleanup(func() {
			if err := srv.Stop(); err != nil {
				t.Errorf("stop the pack's server: %v", err)
			}
		})
		if err := srv.Configure(cfg); err != nil {
			t.Fatal(err)
		}
		if wr, ok := srv.(frozen.Wrapper); ok {
			wrappers = append(wrappers, wr)
		}
	}
	ew, err := workspace.Open(ctx, cfg, workspace.Env{Getenv: func(string) string { return "" }, Warn: func(string) {}, NoModel: true})
	if err != nil {
		t.Fatalf("open the pack's workspace: %v", err)
	}
	defer ew.Close()
	for _, wr := range wrappers {
		ew.Adapters = wr.Wrap(ew.Adapters)
	}
	if ew.Tools, err = harness.NewToolset(ew.Adapters, ew.Playbooks); err != nil {
		t.Fatal(err)
	}
	again, err := ew.CallTool(ctx, s.Tool(), f.Call, workspace.NoAudit)
	if err != nil {
		t.Fatalf("%s served from the pack: %v", s.Tool(), err)
	}
	if obs := string(again.Observation); !strings.Contains(obs, f.Marker) {
		t.Errorf("eval served %s from the pack without the fixture's %q: %s", s.Tool(), f.Marker, clip(obs))
	}
}

// named is the entry the fixture's Call names under NameKey, "" for none.
func named(f Fixture) string {
	if f.NameKey == "" {
		return ""
	}
	var in map[string]any
	_ = json.Unmarshal(f.Call, &in) // a call that is no object names nothing
	s, _ := in[f.NameKey].(string)
	return s
}

// load loads the fixture's configuration as every command does.
func load(t *testing.T, f Fixture) *config.Config {
	t.Helper()
	root := t.TempDir()
	file := filepath.Join(root, "superbiz.toml")
	if err := os.WriteFile(file, []byte(f.Config), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_DATA_HOME": filepath.Join(root, "data"), "HOME": root}
	for k, v := range f.Env {
		vars[k] = v
	}
	cfg, err := registry.Load(config.LoadOptions{ConfigPath: file, WorkDir: root, Getenv: func(k string) string { return vars[k] }})
	if err != nil {
		t.Fatalf("load the fixture's configuration: %v", err)
	}
	return cfg
}

// clip keeps a failure message short.
func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
