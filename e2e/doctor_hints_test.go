package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// doctor against an OpenAI-compatible server that wants a key it was not
// given prints the key's fix once, on the api key line; the openai line
// points there instead of repeating it (issue 40 #13).
func TestDoctorKeyHintOnce(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithModels("qwen3:8b"), openaitest.WithAPIKey("sk-wanted"))
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.run(t, "--provider", "openai", "--url", srv.URL(), "doctor")
	if r.code != 1 {
		t.Fatalf("doctor with no key for a server that wants one: exit %d, want 1\n%s", r.code, r)
	}
	if n := strings.Count(r.stdout, "put the server's API key in $OPENAI_API_KEY"); n != 1 {
		t.Errorf("the key's hint is printed %d times, want once:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "see the api key check") {
		t.Errorf("the openai line does not point at the api key check:\n%s", r.stdout)
	}
}

// A configuration that does not load gets a hint that says where the keys
// are described and how to get a file to compare with, not `--help`
// (whose flags do not describe the file).
func TestDoctorConfigHint(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	bad := filepath.Join(e.dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[model]\nnmme = \"qwen3:8b\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "--config", bad, "doctor")
	if r.code != 2 || !strings.Contains(r.stdout, `unknown key "model.nmme" in `+bad) {
		t.Fatalf("doctor with an unknown key: exit %d, want 2 and the key named\n%s", r.code, r)
	}
	for _, want := range []string{"docs/SPEC.md#keys", "`superbiz config init`", "`superbiz config path`"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the config hint lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "--help") {
		t.Errorf("the config hint still points at --help:\n%s", r.stdout)
	}
}
