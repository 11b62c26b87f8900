package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

const goodScenario = `id = "disk-full"
title = "writes fail"
tags = ["disk", "en"]
now = "2026-11-20T09:30:00Z"
question = "why do writes fail?"

[expect]
outcome = "SUCCESS"
root_cause_any = [["disk", "space"]]
forbidden = ["(?i)memory"]
evidence = ["query_logs:app"]
`

const goodConfig = "[[logs]]\nname = \"app\"\npaths = [\"*.log\"]\n"

func writePack(t *testing.T, dir, scenario, cfg string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if scenario != "" {
		if err := os.WriteFile(filepath.Join(dir, ScenarioFile), []byte(scenario), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadPack(t *testing.T) {
	p := LoadPack(writePack(t, t.TempDir(), goodScenario, goodConfig))
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	if p.ID != "disk-full" || p.Expect.Outcome != runrecord.OutcomeSuccess || p.Now.Format("15:04") != "09:30" || len(p.Expect.Forbidden) != 1 || len(p.Served) != 0 {
		t.Errorf("pack %+v", p)
	}
}

// The table of every Packed source of the registry is one a pack may hold,
// named in the refusal of any other: no list here names them.
func TestPackTablesOfTheRegistry(t *testing.T) {
	tables := registry.PackTables()
	if len(tables) == 0 {
		t.Fatal("no registered source is Packed: [skills] is")
	}
	err := checkTables(ConfigFile, map[string]any{"model": map[string]any{}})
	for _, pt := range tables {
		if err == nil || !strings.Contains(err.Error(), pt.Shown) {
			t.Errorf("the refusal of [model] does not name %s: %v", pt.Shown, err)
		}
		if err := checkTables(ConfigFile, map[string]any{pt.Key: map[string]any{}}); err != nil {
			t.Errorf("[%s] refused: %v", pt.Key, err)
		}
	}
}

// A bad pack's error names the file and the key.
func TestLoadPackErrors(t *testing.T) {
	for _, tt := range []struct {
		name, scenario, cfg, file, want string
	}{
		{"unknown key", goodScenario + "colour = \"red\"\n", goodConfig, ScenarioFile, "expect.colour: unknown key"},
		{"unknown top key", "extra = 1\n" + goodScenario, goodConfig, ScenarioFile, "extra: unknown key"},
		{"bad outcome", strings.Replace(goodScenario, `"SUCCESS"`, `"MAYBE"`, 1), goodConfig, ScenarioFile, "expect.outcome"},
		{"bad id", strings.Replace(goodScenario, `"disk-full"`, `"Disk Full"`, 1), goodConfig, ScenarioFile, "id:"},
		{"bad now", strings.Replace(goodScenario, `2026-11-20T09:30:00Z`, `yesterday`, 1), goodConfig, ScenarioFile, "now:"},
		{"bad regexp", strings.Replace(goodScenario, `(?i)memory`, `(unclosed`, 1), goodConfig, ScenarioFile, "expect.forbidden[0]"},
		{"bad evidence", strings.Replace(goodScenario, `query_logs:app`, `query logs`, 1), goodConfig, ScenarioFile, "expect.evidence[0]"},
		{"bad type", strings.Replace(goodScenario, `tags = ["disk", "en"]`, `tags = "disk"`, 1), goodConfig, ScenarioFile, "tags"},
		{"bad toml", goodScenario + "[expect\n", goodConfig, ScenarioFile, ScenarioFile},
		{"no question", strings.Replace(goodScenario, `question = "why do writes fail?"`, ``, 1), goodConfig, ScenarioFile, "question: missing"},
		{"no root cause", strings.Replace(goodScenario, `root_cause_any = [["disk", "space"]]`, ``, 1), goodConfig, ScenarioFile, "expect.root_cause_any: missing"},
		{"missing config", goodScenario, "", ConfigFile, "no such file"},
		{"model in config", goodScenario, goodConfig + "[model]\nname = \"x\"\n", ConfigFile, "model: a pack may hold only [[logs]], [[databases]], [knowledge]"},
		{"alerts in config", goodScenario, goodConfig + "[alerts]\nurl = \"http://127.0.0.3:9093\"\n", ConfigFile, "alerts: a pack may hold only"},
		{"metrics with a token", goodScenario, goodConfig + "[[metrics]]\nname = \"m\"\nurl = \"http://127.0.0.3:1\"\nbearer_token_env = \"AWS_SECRET_ACCESS_KEY\"\n", ConfigFile, "metrics: a pack may hold only"},
		{"metrics with a password", goodScenario, goodConfig + "[[metrics]]\nname = \"m\"\nurl = \"http://127.0.0.3:1\"\nusername = \"u\"\npassword_env = \"HOME\"\n", ConfigFile, "metrics: a pack may hold only"},
		{"run store", goodScenario, "db = \"/tmp/x.db\"\n" + goodConfig, ConfigFile, "db: a pack may hold only"},
		{"budget", goodScenario, "[budget]\nmax_tool_calls = 3\n" + goodConfig, ConfigFile, "budget: a pack may hold only"},
		{"mysql database", goodScenario, goodConfig + "[[databases]]\nname = \"d\"\ndriver = \"mysql\"\ndsn = \"u:p@tcp(127.0.0.3:3306)/x\"\n", ConfigFile, "databases[0].driver: \"mysql\": a pack's database is a SQLite file"},
		{"absolute log path", goodScenario, "[[logs]]\nname = \"app\"\npaths = [\"/etc/shadow\"]\n", ConfigFile, `logs[0].paths[0]: "/etc/shadow" lies outside the pack`},
		{"home log path", goodScenario, "[[logs]]\nname = \"app\"\npaths = [\"~/.aws/credentials\"]\n", ConfigFile, `logs[0].paths[0]: "/.aws/credentials" lies outside the pack`},
		{"dsn upward", goodScenario, goodConfig + "[[databases]]\nname = \"d\"\ndriver = \"sqlite\"\ndsn = \"../../x.sql\"\n", ConfigFile, "databases[0].dsn"},
		{"runbooks upward", goodScenario, goodConfig + "[knowledge]\npaths = [\"../\"]\n", ConfigFile, "knowledge.paths[0]"},
		{"skills absolute", goodScenario, goodConfig + "[skills]\npaths = [\"/etc\"]\n", ConfigFile, "skills.paths[0]"},
		{"deep scenario", goodScenario + "x = " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n", goodConfig, ScenarioFile, "nest more than 32 levels deep"},
		{"deep config", goodScenario, "x = " + strings.Repeat("[", 4000) + strings.Repeat("]", 4000) + "\n", ConfigFile, "nest more than 32 levels deep"},
		{"large scenario", goodScenario + "# " + strings.Repeat("x", 1<<20) + "\n", goodConfig, ScenarioFile, "larger than the 1024 KiB limit"},
		{"unknown config key", goodScenario, goodConfig + "colour = 1\n", ConfigFile, "colour"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := LoadPack(writePack(t, t.TempDir(), tt.scenario, tt.cfg))
			if p.Err == nil {
				t.Fatal("loaded")
			}
			if msg := p.Err.Error(); !strings.Contains(msg, tt.file) || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want the file %s and %q", msg, tt.file, tt.want)
			}
		})
	}
}

// A suite is searched one level deep; a duplicate id is the later pack's
// error; a directory without scenario.toml is not a pack.
func TestLoadSuite(t *testing.T) {
	dir := t.TempDir()
	writePack(t, filepath.Join(dir, "a"), goodScenario, goodConfig)
	writePack(t, filepath.Join(dir, "b"), goodScenario, goodConfig)
	writePack(t, filepath.Join(dir, "c", "deeper"), strings.Replace(goodScenario, "disk-full", "deep", 1), goodConfig)
	writePack(t, filepath.Join(dir, "d"), "", goodConfig)
	packs, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) != 2 || packs[0].Err != nil || packs[1].Err == nil || !strings.Contains(packs[1].Err.Error(), "already the id of") {
		t.Fatalf("packs %d: %v, %v", len(packs), packs[0].Err, packs[len(packs)-1].Err)
	}
	if _, err := LoadSuite(filepath.Join(dir, "d")); err == nil {
		t.Error("a suite without packs loaded")
	}
	if !packs[0].Match("en") || !packs[0].Match("disk-full") || packs[0].Match("tls") {
		t.Error("Match")
	}
}

// The built-in suite loads without an error, with unique ids, and has
// FALLBACK packs and Chinese packs.
func TestBuiltinSuiteLoads(t *testing.T) {
	dir, err := WriteBuiltin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	packs, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range packs {
		if p.Err != nil {
			t.Errorf("%s: %v", filepath.Base(p.Dir), p.Err)
		}
		count[string(p.Expect.Outcome)]++
		for _, tag := range p.Tags {
			count[tag]++
		}
		if _, err := os.Stat(filepath.Join(p.Dir, "metrics.om")); err == nil {
			count["metrics.om"]++
		}
		if p.Alert != nil {
			count["alert"]++
		}
	}
	if len(packs) < 24 || count["FALLBACK"] < 8 || count["en"] == 0 || count["zh"] == 0 || count["metrics.om"] == 0 || count["alert"] == 0 {
		t.Errorf("%d packs: %v; want at least 24, 8 FALLBACK, English, Chinese, metrics and alert packs", len(packs), count)
	}
}

// A pack's files are read through the configuration's guards and every
// link in it stays inside it: a FIFO or a device in place of a file, or a
// link out of the pack, is the pack's error, and nothing waits on it.
func TestLoadPackSpecialFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.log")
	if err := os.WriteFile(outside, []byte("password=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, replace string
		make          func(t *testing.T, dir string)
		want          string
	}{
		{"scenario FIFO", ScenarioFile, func(t *testing.T, dir string) { fixture.Mkfifo(t, filepath.Join(dir, ScenarioFile)) }, ScenarioFile + " is a named pipe (FIFO), not a regular file"},
		{"config FIFO", ConfigFile, func(t *testing.T, dir string) { fixture.Mkfifo(t, filepath.Join(dir, ConfigFile)) }, ConfigFile + ": is a named pipe (FIFO), not a regular file"},
		{"scenario /dev/zero", ScenarioFile, func(t *testing.T, dir string) { symlink(t, "/dev/zero", filepath.Join(dir, ScenarioFile)) }, "is a device, not a regular file"},
		{"log FIFO", "", func(t *testing.T, dir string) { fixture.Mkfifo(t, filepath.Join(dir, "app.log")) }, "app.log: is a named pipe (FIFO)"},
		{"log linked out", "", func(t *testing.T, dir string) { symlink(t, outside, filepath.Join(dir, "app.log")) }, "app.log: links to " + outside + ", outside the pack"},
		{"folder linked out", "", func(t *testing.T, dir string) { symlink(t, filepath.Dir(outside), filepath.Join(dir, "runbooks")) }, "runbooks: links to"},
		{"metrics FIFO", "", func(t *testing.T, dir string) { fixture.Mkfifo(t, filepath.Join(dir, "metrics.om")) }, "metrics.om: is a named pipe (FIFO)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ScenarioFile), []byte(goodScenario), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(goodConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.replace != "" {
				if err := os.Remove(filepath.Join(dir, tt.replace)); err != nil {
					t.Fatal(err)
				}
			}
			tt.make(t, dir)
			p := LoadPack(dir)
			if p.Err == nil || !strings.Contains(p.Err.Error(), tt.want) {
				t.Errorf("error %v, want %q", p.Err, tt.want)
			}
		})
	}
	// A link that stays inside the pack is a file of the pack.
	dir := writePack(t, t.TempDir(), goodScenario, goodConfig)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.txt", filepath.Join(dir, "app.log"))
	if p := LoadPack(dir); p.Err != nil {
		t.Errorf("a link inside the pack: %v", p.Err)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// What a pack holds for eval to serve is read at load by the registry's
// Replayers: metrics_sources needs a metrics.om, a recording must be eval
// pack's, and each is the pack's error naming its file.
func TestPackServed(t *testing.T) {
	dir := writePack(t, t.TempDir(), strings.Replace(goodScenario, "[expect]", "metrics_sources = [\"main\", \"thanos\"]\n\n[expect]", 1), goodConfig)
	if p := LoadPack(dir); p.Err == nil || !strings.Contains(p.Err.Error(), "metrics_sources") {
		t.Errorf("without metrics.om: %v", p.Err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.om"), []byte("up 1 1\n# EOF\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := LoadPack(dir); p.Err != nil || len(p.Served) != 1 {
		t.Errorf("pack: %d served, %v", len(p.Served), p.Err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recorded.json"), []byte(`{"databases":[],"calls":[],"dsn":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := LoadPack(dir); p.Err == nil || !strings.Contains(p.Err.Error(), "recorded.json") || !strings.Contains(p.Err.Error(), "unknown field") {
		t.Errorf("a recording eval pack did not write: %v", p.Err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recorded.json"), []byte(`{"databases":[{"name":"shop","driver":"postgres"}],"calls":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := LoadPack(dir); p.Err != nil || len(p.Served) != 2 {
		t.Errorf("pack: %d served, %v", len(p.Served), p.Err)
	}
}
