package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

var builtinPlaybooks = []string{
	"diagnose-jvm-memory-risk", "diagnose-mysql-connection-pool", "diagnose-payment-timeout",
	"diagnose-pod-restarts", "diagnose-redis-timeout", "diagnose-slow-response",
}

func TestSkillsList(t *testing.T) {
	env := diagnoseEnv(t)
	for _, args := range [][]string{{"skills"}, {"skills", "list"}} {
		code, out, errOut := cli(t, env, args...)
		if code != ExitOK || errOut != "" {
			t.Fatalf("%q: exit %d, %q", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(builtinPlaybooks)+1 || !strings.HasPrefix(lines[0], "NAME") {
			t.Fatalf("%q: want a header and %d playbooks:\n%s", args, len(builtinPlaybooks), out)
		}
		for i, name := range builtinPlaybooks {
			f := strings.Fields(lines[i+1])
			if f[0] != name || f[1] != "builtin" || len(f) < 4 {
				t.Errorf("%q: line %q, want %s builtin <description>", args, lines[i+1], name)
			}
		}
	}
	code, out, _ := cli(t, env, "skills", "list", "-o", "json")
	var list []skillOutput
	if err := json.Unmarshal([]byte(out), &list); code != ExitOK || err != nil || len(list) != len(builtinPlaybooks) {
		t.Fatalf("-o json: exit %d, %v: %s", code, err, out)
	}
	for i, p := range list {
		if p.Name != builtinPlaybooks[i] || p.Description == "" || p.Source != "builtin" || p.Body != "" {
			t.Errorf("-o json item %+v", p)
		}
	}
}

func TestSkillsShow(t *testing.T) {
	env := diagnoseEnv(t)
	cat, err := skills.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cat.Get("diagnose-redis-timeout")
	code, out, errOut := cli(t, env, "skills", "show", "diagnose-redis-timeout")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if out != strings.TrimRight(want.Body, "\n")+"\n" || !strings.HasPrefix(out, "# Diagnose Redis timeouts") {
		t.Errorf("body differs from the catalog's:\n%s", out)
	}
	code, out, _ = cli(t, env, "skills", "show", "-o", "json", "diagnose-redis-timeout")
	var got skillOutput
	if err := json.Unmarshal([]byte(out), &got); code != ExitOK || err != nil || got.Body != want.Body || got.Source != "builtin" {
		t.Errorf("-o json: exit %d, %v, %+v", code, err, got)
	}
	code, out, errOut = cli(t, env, "skills", "show", "diagnose-redis")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, `unknown playbook "diagnose-redis"; valid: `+strings.Join(builtinPlaybooks, ", ")+`; did you mean "diagnose-redis-timeout"?`) {
		t.Errorf("unknown: exit %d, %q %q", code, out, errOut)
	}
}

// A malformed user playbook is reported by path and skipped; the good one
// next to it is listed and shown.
func TestSkillsUserPlaybooks(t *testing.T) {
	dir := t.TempDir()
	env := diagnoseEnv(t)
	fixture.WriteFile(t, filepath.Join(dir, "skills", "check-kafka-lag", "SKILL.md"),
		"---\nname: check-kafka-lag\ndescription: Consumer lag grows on a topic.\n---\n# Check Kafka lag\n\nRead the \x1b[31mconsumer\x1b[0m logs first.\n")
	broken := filepath.Join(dir, "skills", "broken", "SKILL.md")
	fixture.WriteFile(t, broken, "# no front matter\n")
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, "[skills]\npaths = [\"./skills\"]\n")

	code, out, errOut := cli(t, env, "--config", cfg, "skills", "list")
	if code != ExitOK {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if !strings.Contains(errOut, "superbiz: skipped playbook: playbook "+broken+": no front matter") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr does not report the broken playbook once by path:\n%s", errOut)
	}
	if !strings.Contains(out, "check-kafka-lag") || strings.Contains(out, "broken") || strings.Count(out, "\n") != len(builtinPlaybooks)+2 {
		t.Errorf("list:\n%s", out)
	}
	code, out, _ = cli(t, env, "--config", cfg, "skills", "show", "check-kafka-lag")
	if code != ExitOK || out != "# Check Kafka lag\n\nRead the consumer logs first.\n" {
		t.Errorf("show: exit %d, %q", code, out)
	}
	code, _, _ = cli(t, env, "--config", cfg, "skills", "show", "broken")
	if code != ExitUsage {
		t.Errorf("show broken: exit %d, want 2", code)
	}
}
