package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if p.ID != "disk-full" || p.Expect.Outcome != runrecord.OutcomeSuccess || p.Now.Format("15:04") != "09:30" || len(p.Expect.Forbidden) != 1 || p.Metrics {
		t.Errorf("pack %+v", p)
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
		{"model in config", goodScenario, goodConfig + "[model]\nname = \"x\"\n", ConfigFile, "model: a pack may not set [model]"},
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
		if p.Metrics {
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
