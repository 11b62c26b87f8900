package registry

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
)

// TestConformance is what every registered source owes, checked for each
// line of Sources() with no list of its own: a new source joins by its
// line in the registry. Each subtest is named by the source's folder.
// Checks other engineers add (the canary secrets of the egress issue, the
// eval pack freeze and replay round trip) go in conformance, one function
// each, taking the source.
func TestConformance(t *testing.T) {
	seenName, seenTool := map[string]bool{}, map[string]string{}
	for _, s := range Sources() {
		if s.Name() == "" || seenName[s.Name()] {
			t.Errorf("source %T: name %q is empty or taken", s, s.Name())
		}
		seenName[s.Name()] = true
		if tool := s.Tool(); tool != "" {
			if other, dup := seenTool[tool]; dup {
				t.Errorf("sources %s and %s both add %s", other, s.Name(), tool)
			}
			seenTool[tool] = s.Name()
		}
	}
	for _, s := range Sources() {
		t.Run(s.Name(), func(t *testing.T) {
			for _, check := range conformance {
				check(t, s)
			}
		})
	}
}

// conformance are the checks TestConformance runs on every source.
var conformance = []func(t *testing.T, s integration.Source){
	conformsSetup,
	conformsConfig,
	conformsExample,
	conformsReads,
	conformsFreeze,
	conformsPacked,
	conformsCanaried,
	// The eval pack round trip (a stored call frozen by eval pack and
	// served back by eval) needs the source stood up: internal/conformance's
	// suite runs it, and TestEverySourceRunsTheSuite makes every source run it.
}

// conformsSetup: a source that adds a tool says how to configure it, naming
// its own table, and the registry finds it by the tool's name. A Composite
// (build_timeline) is configured by the tables of the tools it reads, which
// its text names; its own table ([timeline]) only adds to what it reads.
func conformsSetup(t *testing.T, s integration.Source) {
	tool := s.Tool()
	if tool == "" {
		return
	}
	got := Setup(tool)
	if got == "" || got != s.Setup() {
		t.Errorf("Setup(%s) = %q, want the source's own %q", tool, got, s.Setup())
	}
	_, composite := s.(integration.Composite)
	if c, ok := s.(integration.Configured); ok && !composite && !strings.Contains(got, c.Config().Table+"]") {
		t.Errorf("Setup(%s) = %q names no [%s] table", tool, got, c.Config().Table)
	}
}

// conformsConfig: the source's share of the configuration belongs to a
// declared table, and a key that table does not declare is refused with an
// error naming the key (exit 2 through config.Load).
func conformsConfig(t *testing.T, s integration.Source) {
	c, ok := s.(integration.Configured)
	if !ok {
		return
	}
	table := c.Config().Table
	header := ""
	for _, k := range config.Keys(Parts()...) {
		switch {
		case strings.HasPrefix(k, table+"[]."):
			header = "[[" + table + "]]\nname = \"x\"\n"
		case strings.HasPrefix(k, table+".") && header == "":
			header = "[" + table + "]\n"
		}
	}
	if header == "" {
		t.Fatalf("the share's table %q declares no key", table)
	}
	// Declared once: by a field of config.Config or by a share's Schema.
	own := slices.ContainsFunc(config.Keys(), func(k string) bool {
		return strings.HasPrefix(k, table+".") || strings.HasPrefix(k, table+"[].")
	})
	schemas := 0
	for _, p := range Parts() {
		if p.Table == table && p.Schema != nil {
			schemas++
		}
	}
	if (own && schemas > 0) || schemas > 1 {
		t.Errorf("[%s] is declared %d times by a share's Schema and %v by config.Config: declare it once", table, schemas, own)
	}
	_, _, _, err := load(t, header+"no_such_key_xyz = 1\n", nil)
	if err == nil || !strings.Contains(err.Error(), "no_such_key_xyz") {
		t.Errorf("[%s] with an unknown key: error %v, want it named", table, err)
	}
}

// conformsExample: the source's share gives an example of its table that
// loads alone and configures the source (its table is set), which
// TestDeclaredIsBuild and docs/SPEC.md load with every other source's.
func conformsExample(t *testing.T, s integration.Source) {
	c, ok := s.(integration.Configured)
	if !ok {
		return
	}
	part := c.Config()
	if !strings.Contains(part.Example, "["+part.Table+"]") {
		t.Fatalf("the share of [%s] has no example of its table: %q", part.Table, part.Example)
	}
	cfg, _, _, err := load(t, part.Example, nil)
	if err != nil {
		t.Fatalf("the example of [%s] does not load: %v", part.Table, err)
	}
	def := Defaults()
	if slices.ContainsFunc(config.Keys(Parts()...), func(k string) bool {
		return strings.HasPrefix(k, part.Table+".") || strings.HasPrefix(k, part.Table+"[].")
	}) && slices.Equal(tableValues(cfg, part.Table), tableValues(&def, part.Table)) {
		t.Errorf("the example of [%s] leaves the table at its defaults", part.Table)
	}
}

// tableValues are the values of every key of table in cfg.
func tableValues(cfg *config.Config, table string) []string {
	var out []string
	for _, k := range config.Keys(Parts()...) {
		if strings.HasPrefix(k, table+".") || strings.HasPrefix(k, table+"[].") {
			out = append(out, fmt.Sprint(cfg.Values(k)))
		}
	}
	return out
}

// Each provider's example of [model] loads alone and chooses it.
func TestProviderExamples(t *testing.T) {
	for _, p := range Providers() {
		c, ok := p.(integration.Configured)
		if !ok {
			continue
		}
		cfg, _, _, err := load(t, c.Config().Example, nil)
		if err != nil || cfg.Model.Provider != p.Name() {
			t.Errorf("provider %s: its example %q loads %v (%v)", p.Name(), c.Config().Example, cfg, err)
		}
	}
}

// conformsReads: what eval's grader is told a call read starts with the
// tool, tolerates input and observations that are not JSON, and names the
// source the input gave under "source" or "database".
func conformsReads(t *testing.T, s integration.Source) {
	tool := s.Tool()
	if tool == "" {
		return
	}
	if got := SourcesOf(tool, json.RawMessage("not json"), json.RawMessage("{")); !slices.Equal(got, []string{tool}) {
		t.Errorf("SourcesOf(%s) of unreadable input = %q, want only the tool", tool, got)
	}
	in := json.RawMessage(`{"source":"conf-src","database":"conf-src","query":"x"}`)
	if got := SourcesOf(tool, in, json.RawMessage(`{"error":{"code":"TIMEOUT"}}`)); len(got) < 1 || got[0] != tool {
		t.Errorf("SourcesOf(%s) = %q, want the tool first", tool, got)
	}
}

// conformsFreeze: a source whose tool gives evidence is frozen by eval
// pack (integration.Freezer names the tool), so no source is silently
// left out of a pack.
func conformsFreeze(t *testing.T, s integration.Source) {
	tool := s.Tool()
	if tool == "" {
		return
	}
	f, ok := s.(integration.Freezer)
	if !ok || !slices.Contains(f.Freezes(), tool) {
		t.Errorf("%s adds %s but does not freeze it for eval pack (integration.Freezer)", s.Name(), tool)
	}
}

// conformsPacked: a source whose Freeze writes a table of the pack's
// superbiz.toml (integration.Packed) writes its own, and names the paths
// of its example, each under its table's key, so eval's pack guard keeps
// every one of them inside the pack (a path it forgot would let a pack
// read a file outside its folder).
func conformsPacked(t *testing.T, s integration.Source) {
	p, ok := s.(integration.Packed)
	if !ok {
		return
	}
	c, ok := s.(integration.Configured)
	if !ok || p.PackTable() != c.Config().Table {
		t.Fatalf("%s writes the pack table [%s], not its own configuration table", s.Name(), p.PackTable())
	}
	cfg, _, _, err := load(t, c.Config().Example, nil)
	if err != nil {
		t.Fatal(err)
	}
	paths := p.PackPaths(cfg)
	if len(paths) == 0 {
		t.Errorf("%s: PackPaths of its example %q names no path", s.Name(), c.Config().Example)
	}
	for _, pp := range paths {
		if !strings.HasPrefix(pp.Key, p.PackTable()+".") && !strings.HasPrefix(pp.Key, p.PackTable()+"[") || !filepath.IsAbs(pp.Path) {
			t.Errorf("%s: pack path %s = %q, want a key of [%s] and the loaded (absolute) path", s.Name(), pp.Key, pp.Path, p.PackTable())
		}
	}
	if !slices.ContainsFunc(PackTables(), func(pt PackTable) bool { return pt.Key == p.PackTable() && strings.Contains(pt.Shown, "["+pt.Key+"]") }) {
		t.Errorf("PackTables lacks [%s]: %v", p.PackTable(), PackTables())
	}
}

// uncanaried are the sources that add a tool but plant no canaries yet,
// with why: each must shrink to nothing (issue 34 item 3), and a listed
// source that gains the hook fails until its line goes.
var uncanaried = map[string]string{}

// conformsCanaried: a source that adds a tool plants the canary corpus
// (integration.Canaried), so e2e's canary suite, which runs over this same
// registry, drives it through the real boundary into every sink; a new
// source without the hook fails here instead of staying outside the suite.
func conformsCanaried(t *testing.T, s integration.Source) {
	_, hooked := s.(integration.Canaried)
	why, listed := uncanaried[s.Name()]
	switch {
	case listed && hooked:
		t.Errorf("source %s plants canaries now: remove it from uncanaried", s.Name())
	case listed:
		t.Logf("source %s plants no canaries yet: %s", s.Name(), why)
	case s.Tool() != "" && !hooked:
		t.Errorf("source %s adds %s but plants no canaries: implement integration.Canaried (PlantCanaries) so e2e's canary suite drives it through every sink", s.Name(), s.Tool())
	}
}
