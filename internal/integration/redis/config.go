package redis

import (
	"fmt"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/egress"
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// Config is the [[redis]] share of the configuration: the rules of each
// entry its tags cannot state (the url, the variable's name), its summary
// lines and its password, read at load from the variable the entry names.
// The table's keys are declared in pkg/tools/redis (redistool.Source's
// tags) and handed to config by Schema: config has no field for it.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: []redistool.Source(nil), Resolve: resolveCredentials, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// resolveCredentials reads each entry's password from the variable its
// password_env names; an unset variable leaves it empty, for Build and
// doctor to report.
func resolveCredentials(cfg *config.Config, getenv func(string) string) {
	es := slices.Clone(Entries(cfg))
	for i, r := range es {
		if r.PasswordEnv != "" {
			es[i].Secret = config.NewSecret(getenv(r.PasswordEnv))
		}
	}
	config.SetTable(cfg, table, es)
}

// table is the key of the [[redis]] table.
const table = "redis"

// Entries are the configuration's [[redis]] entries, as loaded.
func Entries(cfg *config.Config) []redistool.Source {
	return config.TableOf[[]redistool.Source](cfg, table)
}

// NewEntry is a [[redis]] entry holding its declared defaults.
func NewEntry() redistool.Source { return defaults.Of[redistool.Source]() }

// checkConfig reports, per entry, a url query_redis cannot use and a
// password_env that names no variable.
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, r := range Entries(cfg) {
		prefix := fmt.Sprintf("redis[%d]", i)
		if msg := redistool.URLProblem(r.URL); msg != "" {
			c.Bad(prefix+".url", config.Show(egress.Mask(r.URL).String()), msg)
		}
		c.EnvName(prefix+".password_env", r.PasswordEnv)
	}
}

// summaryLines is one line per source: its URL, its keys and where its
// password comes from (the variable's name, never the value).
func summaryLines(cfg *config.Config) []string {
	var lines []string
	for _, r := range Entries(cfg) {
		lines = append(lines, fmt.Sprintf("redis %s: %s (%s, auth %s)",
			r.Name, egress.Mask(r.URL).String(), cfg.Pairs("", r, "name", "url", "password_env"), r.Auth()))
	}
	if len(Entries(cfg)) == 0 {
		lines = append(lines, "redis: none configured")
	}
	return lines
}

// example is the [[redis]] entry of SPEC and the registry's tests.
const example = `[[redis]]
name = "cache"
url = "redis://127.0.0.1:6379/0"
`
