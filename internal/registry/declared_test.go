package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/harness"
)

// Declared names exactly the tools Build gives a workspace, in its order
// and with the same descriptions (before the harness's envelope help), for
// every source, without a run store: none is opened or created.
func TestDeclaredIsBuild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	defaults := config.Defaults()
	cfg := &defaults
	cfg.Knowledge.Paths = []string{dir}
	logs := config.NewLogSource()
	logs.Name, logs.Paths = "app", []string{filepath.Join(dir, "*.log")}
	cfg.Logs = []config.LogSource{logs}
	for _, db := range []struct {
		name string
		drv  config.Driver
		dsn  string
	}{
		{"orders", config.DriverSQLite, filepath.Join(dir, "orders.db")},
		{"billing", config.DriverPostgres, "postgres://reader@127.0.0.1:1/billing"},
	} {
		dsn, err := config.NewDSN(db.drv, db.dsn)
		if err != nil {
			t.Fatal(err)
		}
		d := config.NewDatabase()
		d.Name, d.Driver, d.DSN = db.name, db.drv, dsn
		cfg.Databases = append(cfg.Databases, d)
	}

	declared, err := Declared(ctx, cfg, integration.Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Declared: %v", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("Declared wrote %v (%v)", entries, err)
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
	var got, want []string
	for _, d := range declared {
		got = append(got, d.Name)
	}
	for _, d := range built {
		want = append(want, d.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Declared names %q, Build %q", got, want)
	}
	if want := "lookup_knowledge,query_logs,query_mysql,query_postgres,build_timeline,read_skill"; strings.Join(got, ",") != want {
		t.Errorf("Declared names %q, want %s", got, want)
	}
	for i := range declared {
		if !strings.HasPrefix(built[i].Description, declared[i].Description) {
			t.Errorf("%s: declared %q, built %q", declared[i].Name, declared[i].Description, built[i].Description)
		}
	}

	// A source that cannot build is left out, the others still declared.
	cfg.Logs[0].Paths = []string{"["}
	declared, err = Declared(ctx, cfg, integration.Env{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "bad glob") {
		t.Errorf("a bad log source: error %v, want its bad glob", err)
	}
	got = got[:0]
	for _, d := range declared {
		got = append(got, d.Name)
	}
	if want := "lookup_knowledge,query_mysql,query_postgres,read_skill"; strings.Join(got, ",") != want {
		t.Errorf("with a bad log source: %q, want %s", got, want)
	}
}
