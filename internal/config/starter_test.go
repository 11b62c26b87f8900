package config

import (
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The starter file `config init` writes loads as the defaults: its
// uncommented values are the defaults, so writing it changes nothing.
func TestStarterLoadsAsDefaults(t *testing.T) {
	w := newWorkspace(t)
	file := writeFile(t, DefaultFile(w.env.get), Starter())
	if file != filepath.Join(w.configHome, "superbiz", "config.toml") {
		t.Fatalf("DefaultFile = %q, want under $XDG_CONFIG_HOME", file)
	}
	found, err := FindFile(LoadOptions{WorkDir: w.wd, Getenv: w.env.get})
	if err != nil || found != file {
		t.Fatalf("FindFile = %q, %v; want %q", found, err, file)
	}
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	def := Defaults()
	if !reflect.DeepEqual(cfg.Model, def.Model) || cfg.Budget != def.Budget {
		t.Errorf("starter model %+v budget %+v, want the defaults %+v %+v", cfg.Model, cfg.Budget, def.Model, def.Budget)
	}
	if len(cfg.Logs)+len(cfg.Databases)+len(cfg.Metrics) != 0 || cfg.Alerts.URL != "" {
		t.Errorf("starter configures a source: %v", cfg.Summary())
	}
}

// Every commented example of the starter file is valid once uncommented, so a
// newcomer who uncomments one gets a working source, not a config error.
func TestStarterExamplesLoad(t *testing.T) {
	code := regexp.MustCompile(`^# (\[|[a-z_]+ = )`)
	var lines []string
	n := 0
	for line := range strings.Lines(Starter()) {
		if code.MatchString(line) {
			line = strings.TrimPrefix(line, "# ")
			n++
		}
		lines = append(lines, line)
	}
	if n < 20 {
		t.Fatalf("only %d commented example lines found", n)
	}
	w := newWorkspace(t)
	w.env["PROM_TOKEN"] = "t"
	writeFile(t, filepath.Join(w.wd, "superbiz.toml"), strings.Join(lines, ""))
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatalf("Load of the uncommented starter: %v", err)
	}
	if len(cfg.Logs) != 1 || len(cfg.Databases) != 3 || len(cfg.Metrics) != 1 || cfg.Alerts.URL == "" {
		t.Errorf("uncommented starter: %v", cfg.Summary())
	}
	if cfg.Databases[0].Driver != DriverSQLite || cfg.Databases[2].Driver != DriverPostgres {
		t.Errorf("database drivers %q, %q, want the SQLite example first and the PostgreSQL one last", cfg.Databases[0].Driver, cfg.Databases[2].Driver)
	}
}
