package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/redistest"
	"github.com/superbiz/superbiz/internal/testenv"
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// The rules of [[redis]] entries that the tags cannot state are reported
// at load, naming the key and the file, never a password.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "redis url with a password", TOML: "[[redis]]\nname = \"c\"\nurl = \"redis://diag:Hunter2Secret@h:6379\"\n", Want: []string{"redis[0].url = ", "must not carry a password", "password_env"}, Not: []string{"Hunter2Secret"}},
		{Name: "redis url scheme", TOML: "[[redis]]\nname = \"c\"\nurl = \"http://h:6379\"\n", Want: []string{`redis[0].url = "http://h:6379" in `, `scheme "http" not supported`}},
		{Name: "redis url missing", TOML: "[[redis]]\nname = \"c\"\n", Want: []string{`redis[0].url = "" in `, "empty"}},
		{Name: "redis url unknown parameter", TOML: "[[redis]]\nname = \"c\"\nurl = \"redis://h:6379?nosuch=1\"\n", Want: []string{"redis[0].url = ", "unexpected option"}},
		{Name: "redis password written instead of a variable", TOML: "[[redis]]\nname = \"c\"\nurl = \"redis://h:6379\"\npassword_env = \"hunter 2\"\n", Want: []string{"redis[0].password_env = ", "must name an environment variable"}},
		{Name: "redis timeout out of range", TOML: "[[redis]]\nname = \"c\"\nurl = \"redis://h:6379\"\ntimeout = \"5m\"\n", Want: []string{"redis[0].timeout", "1m"}},
	})
}

// The password comes from the variable the file names; the summary says
// where it comes from, never the value.
func TestPasswordFromEnvironment(t *testing.T) {
	cfg, _, err := configtest.Load(t, "[[redis]]\nname = \"cache\"\nurl = \"redis://diag@h:6379\"\npassword_env = \"REDIS_PASSWORD\"\n",
		map[string]string{"REDIS_PASSWORD": "Hunter2Secret"}, Source{}.Config())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if Entries(cfg)[0].Secret.Reveal() != "Hunter2Secret" {
		t.Errorf("the password was not read from the variable")
	}
	b, _ := json.Marshal(cfg)
	shown := cfg.String() + string(b) + fmt.Sprintf("%+v %#v", Entries(cfg), Entries(cfg))
	if strings.Contains(shown, "Hunter2Secret") {
		t.Errorf("the password is shown:\n%s", shown)
	}
	if want := "redis cache: redis://diag@h:6379 (timeout 5s, auth password from $REDIS_PASSWORD)"; !strings.Contains(cfg.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, cfg)
	}
}

// doctor passes the read-only diagnostic user of SPEC's ACL line, warns
// about the default user (it can write), fails a wrong password and an
// unset variable, and prints no password.
func TestDoctor(t *testing.T) {
	testenv.SkipShort(t, "starts a real redis-server")
	const pw = "diag-Doctor-7a1c"
	srv := redistest.Start(t, "user diag on >"+pw+" "+redistool.ACLRules)
	env := map[string]string{"DIAG_PW": pw, "BAD_PW": "not-the-password"}
	entry := func(name, user, envName string) string {
		s := fmt.Sprintf("[[redis]]\nname = %q\nurl = %q\n", name, srv.URL(user))
		if envName != "" {
			s += fmt.Sprintf("password_env = %q\n", envName)
		}
		return s
	}
	cfg, _, err := configtest.Load(t, entry("diag", "diag", "DIAG_PW")+entry("admin", "", "")+entry("wrong", "diag", "BAD_PW")+entry("unset", "diag", "UNSET_PW"), env, Source{}.Config())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	got := Source{}.Doctor(context.Background(), cfg, integration.Env{})
	want := map[string]doctor.Status{"redis diag": doctor.Pass, "redis admin": doctor.Warn, "redis wrong": doctor.Fail, "redis unset": doctor.Fail}
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for _, r := range got {
		if r.Status != want[r.Check] {
			t.Errorf("%s: status %v (%s; %s), want %v", r.Check, r.Status, r.Detail, r.Hint, want[r.Check])
		}
		if strings.Contains(r.Detail+r.Hint, pw) || strings.Contains(r.Detail+r.Hint, "not-the-password") {
			t.Errorf("%s prints a password: %s %s", r.Check, r.Detail, r.Hint)
		}
	}
	for _, r := range got {
		switch r.Check {
		case "redis diag":
			if !strings.Contains(r.Detail, "read-only: GETDEL (a write) was refused with NOPERM") || !strings.Contains(r.Detail, "Redis 7") {
				t.Errorf("diag detail: %s", r.Detail)
			}
		case "redis admin":
			if !strings.Contains(r.Detail, "can write") || !strings.Contains(r.Hint, "+slowlog|get") {
				t.Errorf("admin: %s; %s", r.Detail, r.Hint)
			}
		case "redis wrong":
			if !strings.Contains(r.Hint, "refused the credentials") {
				t.Errorf("wrong password hint: %s", r.Hint)
			}
		}
	}
	// Build refuses the unset variable as a configuration error.
	err = Source{}.Build(context.Background(), cfg, integration.Env{}, &integration.Parts{})
	var ce *integration.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "$UNSET_PW, which is not set") {
		t.Errorf("Build with an unset variable: %v", err)
	}
}
