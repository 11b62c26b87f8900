package redis

import (
	"time"

	"github.com/superbiz/superbiz/pkg/egress"
)

// Source is one [[redis]] entry: a Redis server or cluster query_redis may
// read. Its password is named by an environment variable, never written in
// the file or the URL. Its tags give the table's keys, defaults and bounds
// (internal/config reads them).
type Source struct {
	Name string `toml:"name" json:"name"`
	// URL is redis://[user@]host:port[/db] or rediss:// for TLS; a cluster
	// is go-redis's cluster URL, its other nodes as addr= parameters.
	URL string `toml:"url" json:"url"`
	// PasswordEnv names the variable holding the password (AUTH).
	PasswordEnv string        `toml:"password_env" json:"password_env"`
	Timeout     time.Duration `toml:"timeout" json:"timeout" default:"5s" min:"100ms" max:"1m"`
	// Secret is the password read from the environment at load ("" when
	// the variable is unset); it prints redacted.
	Secret egress.Secret `json:"-"`
}

// Auth describes the source's credentials without their value.
func (s Source) Auth() string {
	switch {
	case s.PasswordEnv == "":
		return "none"
	case s.Secret.IsZero():
		return "password from $" + s.PasswordEnv + ", NOT SET"
	}
	return "password from $" + s.PasswordEnv
}
