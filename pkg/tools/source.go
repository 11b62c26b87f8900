package tools

import (
	"strconv"
	"strings"
	"time"
)

// HTTPAuth is the credentials of an HTTP source ([alerts], [[metrics]]),
// declared, checked and described once: at most one of a bearer token or
// basic authentication, each secret named by an environment variable, never
// written in the file. Its keys sit in the embedding table.
type HTTPAuth struct {
	// BearerTokenEnv names the variable holding a bearer token.
	BearerTokenEnv string `toml:"bearer_token_env" json:"bearer_token_env"`
	// Username and PasswordEnv (the variable holding the password) are basic authentication.
	Username    string `toml:"username" json:"username"`
	PasswordEnv string `toml:"password_env" json:"password_env"`
}

// Describe says how a source authenticates, never with the secret: the
// kind, the username, and the variable as from shows it; "none" without.
func (a HTTPAuth) Describe(from func(env string) string) string {
	switch {
	case a.BearerTokenEnv != "":
		return "bearer token from " + from(a.BearerTokenEnv)
	case a.Username != "":
		return "basic " + strconv.Quote(a.Username) + " with the password from " + from(a.PasswordEnv)
	}
	return "none"
}

// FormatDuration prints a duration the way a person writes it in the file
// ("5m", "6h", "100ms"), for messages and flag help that show config values.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
