package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skillSecrets are the secrets a team wrote into its own SKILL.md.
var skillSecrets = []string{"hunter2", "ghp_1234567890abcdefghijABCDEFGHIJ123456"}

// writeSecretSkill writes a [skills] path holding one playbook whose
// description and body carry skillSecrets, and a config naming it.
func writeSecretSkill(t *testing.T, e *env) string {
	t.Helper()
	dir := filepath.Join(e.dir, "skills", "check-secrets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: check-secrets\ndescription: Log in with password=hunter2 first.\n---\n" +
		"1. Run `mysql -u ro password=hunter2` against the replica.\n" +
		"2. Then `curl -u admin:hunter2 https://grafana.internal/api/health`.\n" +
		"3. The deploy bot token is ghp_1234567890abcdefghijABCDEFGHIJ123456.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[skills]\npaths = [\""+filepath.Join(e.dir, "skills")+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func holdsSkillSecret(s string) string {
	for _, sec := range skillSecrets {
		if strings.Contains(s, sec) {
			return sec
		}
	}
	return ""
}

// A playbook's secrets are masked on every path its text takes: the
// catalog in the system prompt and the read_skill observation that reach
// the model server (both providers), tools call, skills show and the run
// store (issue 27 #5: only the stored copy was masked).
func TestPlaybookSecretsMasked(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := p.start(t)
			srv.Script(skill("call_1", "check-secrets"), text(`{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing checked","missing_info":["the logs"]}}`))
			e := srv.env(t)
			cfg := writeSecretSkill(t, e)
			r := e.run(t, "--config", cfg, "diagnose", "-o", "json", "why is checkout slow?")
			if r.code != 3 { // an honest FALLBACK: nothing was checked
				t.Fatalf("diagnose:\n%s", r)
			}
			reqs := srv.ChatRequests()
			if len(reqs) < 2 {
				t.Fatalf("%d model requests, want the read_skill round and the draft", len(reqs))
			}
			sawBody := false
			for i, req := range reqs {
				for _, m := range req.Messages {
					if sec := holdsSkillSecret(m.Content); sec != "" {
						t.Errorf("request %d, %s message, sends %q to the model server", i, m.Role, sec)
					}
					sawBody = sawBody || (m.Role == "tool" && strings.Contains(m.Content, "grafana.internal"))
				}
			}
			if !sawBody {
				t.Error("the read_skill observation never reached the model: the test proves nothing")
			}
			out := decodeOutput(t, r)
			for _, got := range []result{
				r,
				e.run(t, "--config", cfg, "-o", "json", "tools", "call", "read_skill", `{"name":"check-secrets"}`),
				e.run(t, "--config", cfg, "skills", "show", "check-secrets"),
				e.run(t, "--config", cfg, "skills", "list"),
				e.run(t, "runs", "show", out.RunID, "-o", "json"),
			} {
				if sec := holdsSkillSecret(got.stdout + got.stderr); sec != "" {
					t.Errorf("%q shows %q:\n%s", got.args, sec, got)
				}
			}
		})
	}
}
