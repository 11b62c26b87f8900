package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// EmbeddedAuth stands for a group of keys shared by several tables by
// embedding, the way toml reads an untagged embedded struct.
type EmbeddedAuth struct {
	TokenEnv string `toml:"token_env" json:"token_env"`
	Username string `toml:"username" json:"username" default:"anon"`
}

// withEmbedded is a table holding EmbeddedAuth's keys as its own.
type withEmbedded struct {
	URL string `toml:"url" json:"url"`
	EmbeddedAuth
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"5s"`
}

// decodeTable decodes body as one table of type T over its defaults.
func decodeTable[T any](t *testing.T, body string) (T, []string) {
	t.Helper()
	var root toml.Primitive
	md, err := toml.Decode(body, &root)
	if err != nil {
		t.Fatal(err)
	}
	x := defaultsOf[T]()
	d := &decoder{md: &md, file: "/etc/s.toml"}
	d.table("t", root, reflect.ValueOf(&x).Elem())
	return x, d.probs
}

// An embedded struct's keys are decoded, defaulted, suggested, listed and
// shown in JSON as the embedding table's own.
func TestEmbeddedStructKeys(t *testing.T) {
	got, probs := decodeTable[withEmbedded](t, "url = \"http://h\"\ntoken_env = \"TOK\"\ntimeout = \"7s\"\n")
	want := withEmbedded{URL: "http://h", EmbeddedAuth: EmbeddedAuth{TokenEnv: "TOK", Username: "anon"}, Timeout: 7 * time.Second}
	if len(probs) != 0 || got != want {
		t.Fatalf("decoded %+v, problems %q; want %+v", got, probs, want)
	}
	if keys := keysOf(reflect.TypeFor[withEmbedded]()); !slices.Equal(keys, []string{"url", "token_env", "username", "timeout"}) {
		t.Errorf("keys = %v", keys)
	}
	_, probs = decodeTable[withEmbedded](t, "usernme = \"u\"\n")
	if len(probs) != 1 || !strings.Contains(probs[0], `unknown key "t.usernme" in /etc/s.toml (did you mean "t.username"?)`) {
		t.Errorf("problems = %q, want the did-you-mean of an embedded key", probs)
	}
	b, err := appendJSON(nil, reflect.ValueOf(want))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); s != `{"url":"http://h","token_env":"TOK","username":"anon","timeout":"7s"}` {
		t.Errorf("JSON = %s", s)
	}
}

// One bad value never hides another: each key is decoded on its own, and
// the good keys beside the bad ones still arrive.
func TestDecodeReportsEveryValue(t *testing.T) {
	got, probs := decodeTable[Model](t, "num_ctx = \"big\"\nname = \"m\"\nthink = 1\nrequest_timeout = 5\nlanguage = \"en\"\nzz = 1\n")
	for _, s := range []string{
		`t.num_ctx = "big" in /etc/s.toml: must be an integer`,
		`t.request_timeout = 5 in /etc/s.toml: must be a duration string such as "180s" or "3m"`,
		`t.think = 1 in /etc/s.toml: must be true or false`,
		`unknown key "t.zz" in /etc/s.toml`,
	} {
		if !slices.ContainsFunc(probs, func(p string) bool { return strings.HasPrefix(p, s) }) {
			t.Errorf("problems lack %q:\n%s", s, strings.Join(probs, "\n"))
		}
	}
	if len(probs) != 4 {
		t.Errorf("%d problems, want 4:\n%s", len(probs), strings.Join(probs, "\n"))
	}
	if got.Name != "m" || got.Language != LanguageEN {
		t.Errorf("good keys not decoded beside bad ones: %+v", got)
	}
}
