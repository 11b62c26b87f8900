package config

import (
	"reflect"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Policy is the egress policy with every credential c holds (the model's
// API key, each database's DSN password, each source's token or password,
// read from its variable through getenv) added: text stored before a
// credential was configured, or by an older version, still has it masked
// when it is shown again (`runs show`). Credentials shorter than
// egress.MinTokenBytes are not added (they would rewrite ordinary words).
func (c *Config) Policy(getenv func(string) string) egress.Policy {
	var p egress.Policy
	for _, t := range c.allTables() {
		p = withCredentials(p, t.v, getenv)
	}
	return p
}

var (
	secretType = reflect.TypeFor[egress.Secret]()
	authType   = reflect.TypeFor[tools.HTTPAuth]()
)

// passworded is a value that holds a password among other text, such as
// a [[databases]] entry's DSN (sqlquery.DSN): Policy adds the password.
type passworded interface{ Password() egress.Secret }

// withCredentials adds to p every credential v holds, at any depth of its
// exported fields, slices and pointers.
func withCredentials(p egress.Policy, v reflect.Value, getenv func(string) string) egress.Policy {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			p = withCredentials(p, v.Elem(), getenv)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			p = withCredentials(p, v.Index(i), getenv)
		}
	case reflect.Struct:
		if !v.CanInterface() {
			return p
		}
		if pw, ok := v.Interface().(passworded); ok {
			return p.WithCredential("", "", pw.Password().Reveal())
		}
		switch v.Type() {
		case secretType:
			return p.WithCredential("", "", v.Interface().(egress.Secret).Reveal())
		case authType:
			a := v.Interface().(tools.HTTPAuth)
			for _, env := range []string{a.BearerTokenEnv, a.PasswordEnv} {
				if env != "" {
					p = p.WithCredential("", "", getenv(env))
				}
			}
			return p
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				p = withCredentials(p, v.Field(i), getenv)
			}
		}
	}
	return p
}
