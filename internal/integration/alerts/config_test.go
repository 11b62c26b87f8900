package alerts

import (
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// The rules of [alerts] that the tags cannot state are reported at load,
// naming the key and the file, never a credential.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "alerts url without scheme", TOML: "[alerts]\nurl = \"am:9093\"\n", Want: []string{`alerts.url = "am:9093" in `, "must start with http:// or https://"}},
		{Name: "alerts url with credentials hides them", TOML: "[alerts]\nurl = \"http://bob:Hunter2Secret@am:9093\"\n", Want: []string{`alerts.url = "http://[REDACTED]@am:9093" in `, "must not carry credentials"}, Not: []string{"Hunter2Secret"}},
		{Name: "alerts url with query", TOML: "[alerts]\nurl = \"http://am:9093/?x=1\"\n", Want: []string{"alerts.url = ", "query or a fragment"}},
		{Name: "alerts url bad port", TOML: "[alerts]\nurl = \"http://am:99999\"\n", Want: []string{"alerts.url = ", "invalid port"}},
		{Name: "alerts secret in the env key", TOML: "[alerts]\nurl = \"http://am:9093\"\nbearer_token_env = \"eyJhb.Hunter2Secret\"\n", Want: []string{"alerts.bearer_token_env = ", "must name an environment variable"}},
		{Name: "alerts two auth methods", TOML: "[alerts]\nurl = \"http://am:9093\"\nbearer_token_env = \"T\"\nusername = \"u\"\npassword_env = \"P\"\n", Want: []string{"alerts.bearer_token_env in ", "not both"}},
		{Name: "alerts username without password_env", TOML: "[alerts]\nurl = \"http://am:9093\"\nusername = \"u\"\n", Want: []string{"alerts.username in ", "needs both username and password_env"}},
		{Name: "alerts timeout zero", TOML: "[alerts]\nurl = \"http://am:9093\"\ntimeout = \"0s\"\n", Want: []string{`alerts.timeout = "0s" in `, "between 100ms and 5m"}},
		{Name: "alerts unknown key", TOML: "[alerts]\nurl = \"http://am:9093\"\ntoken = \"Hunter2Secret\"\n", Want: []string{`unknown key "alerts.token"`}, Not: []string{"Hunter2Secret"}},
		{Name: "alerts auth without url", TOML: "[alerts]\nbearer_token_env = \"T\"\n", Want: []string{"alerts.url in ", "no url"}},
	})
}
