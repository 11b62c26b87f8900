package registry

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/integration"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
)

// Declared names exactly the tools Build gives a workspace, in its order
// and with the same descriptions (before the harness's envelope help), for
// every registered source configured by its example (Example), without a
// run store: none is opened or created.
func TestDeclaredIsBuild(t *testing.T) {
	ctx := context.Background()
	cfg, wd, _, err := load(t, Example(), nil)
	if err != nil {
		t.Fatalf("Load of the sources' examples: %v", err)
	}
	declared, err := Declared(ctx, cfg, integration.Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Declared: %v", err)
	}
	if entries, err := os.ReadDir(wd); err != nil || len(entries) != 1 {
		t.Fatalf("Declared wrote %v (%v) beside superbiz.toml", entries, err)
	}

	store, err := OpenStore(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	parts, err := Build(ctx, cfg, integration.Env{Store: store, Getenv: func(string) string { return "" }, Warn: func(string) {}})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	defer func() { _ = Close(parts) }()
	reg, err := harness.NewToolset(parts.Adapters, parts.Playbooks)
	if err != nil {
		t.Fatal(err)
	}
	built := reg.Definitions()
	got, want := names(declared), []string{}
	for _, d := range built {
		want = append(want, d.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Declared names %q, Build %q", got, want)
	}
	for _, s := range Sources() {
		if s.Tool() != "" && !slices.Contains(got, s.Tool()) {
			t.Errorf("source %s configured by its example declares no %s: %q", s.Name(), s.Tool(), got)
		}
	}
	for i := range declared {
		if !strings.HasPrefix(built[i].Description, declared[i].Description) {
			t.Errorf("%s: declared %q, built %q", declared[i].Name, declared[i].Description, built[i].Description)
		}
	}

	// A source that cannot build is left out, the others still declared.
	bad := slices.Clone(logsource.Entries(cfg))
	bad[0].Paths = []string{"["}
	logsource.SetEntries(cfg, bad...)
	declared, err = Declared(ctx, cfg, integration.Env{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "bad glob") {
		t.Errorf("a bad log source: error %v, want its bad glob", err)
	}
	want = slices.DeleteFunc(slices.Clone(got), func(n string) bool { return n == "query_logs" })
	if got := names(declared); !slices.Equal(got, want) {
		t.Errorf("with a bad log source: %q, want %q", got, want)
	}
}

// names are the tools' names, in order.
func names(defs []model.Tool) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}
