package metrics

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// The rules of [[metrics]] entries that the tags cannot state are reported
// at load, naming the key and the file, never a credential.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "metrics url with credentials", TOML: "[[metrics]]\nname = \"p\"\nurl = \"http://bob:Hunter2Secret@h:9090\"\n", Want: []string{"metrics[0].url = ", "must not carry credentials", "password_env"}, Not: []string{"Hunter2Secret"}},
		{Name: "metrics url scheme", TOML: "[[metrics]]\nname = \"p\"\nurl = \"ftp://h:9090\"\n", Want: []string{`metrics[0].url = "ftp://h:9090" in `, `scheme "ftp" not supported`}},
		{Name: "metrics url missing", TOML: "[[metrics]]\nname = \"p\"\n", Want: []string{`metrics[0].url = "" in `, "empty"}},
		{Name: "metrics url with query", TOML: "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090/?x=1\"\n", Want: []string{"metrics[0].url = ", "query or a fragment"}},
		{Name: "metrics both auth kinds", TOML: "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\nbearer_token_env = \"T\"\nusername = \"u\"\npassword_env = \"P\"\n", Want: []string{"metrics[0].bearer_token_env in ", "not both"}},
		{Name: "metrics username without password_env", TOML: "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\nusername = \"u\"\n", Want: []string{"metrics[0].username in ", "needs both username and password_env"}},
		{Name: "metrics secret written instead of a variable", TOML: "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\nbearer_token_env = \"eyJhbGciOi.Hunter2\"\n", Want: []string{"metrics[0].bearer_token_env = ", "must name an environment variable"}},
	})
}

// A metrics secret comes from the variable the file names; Summary, the
// JSON view and every fmt verb show where it comes from, never the value.
func TestMetricsSecretFromEnvironment(t *testing.T) {
	cfg, _, err := configtest.Load(t, "[[metrics]]\nname = \"p\"\nurl = \"http://h:9090\"\nbearer_token_env = \"PROM_TOKEN\"\n"+
		"[[metrics]]\nname = \"q\"\nurl = \"http://h:9091\"\nusername = \"u\"\npassword_env = \"UNSET_PASSWORD\"\n",
		map[string]string{"PROM_TOKEN": "tok-Hunter2Secret"}, Source{}.Config())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	es := Entries(cfg)
	if got := es[0].Secret.Reveal(); got != "tok-Hunter2Secret" {
		t.Errorf("metrics[0] secret = %q, want the variable's value", got)
	}
	if !es[1].Secret.IsZero() {
		t.Errorf("metrics[1] secret set from an unset variable")
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	shown := strings.Join([]string{cfg.String(), string(b), fmt.Sprintf("%v %+v %#v", es, es, es)}, "\n")
	if strings.Contains(shown, "Hunter2Secret") {
		t.Errorf("the token is shown:\n%s", shown)
	}
	for _, want := range []string{"auth bearer token from $PROM_TOKEN)", `auth basic "u" with the password from $UNSET_PASSWORD, NOT SET)`} {
		if !strings.Contains(cfg.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, cfg)
		}
	}
}
