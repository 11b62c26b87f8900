package playbooks

import (
	"strings"

	"github.com/superbiz/superbiz/internal/config"
)

// Config is the [skills] share of the configuration: the table (Table,
// handed to config by Schema: config has no field for it), its paths,
// resolved at load, their rule and its summary line.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: Table{}, Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [skills] table.
const table = "skills"

// Table is the [skills] table: extra playbook directories
// (<name>/SKILL.md) beside the built-in ones.
type Table struct {
	Paths []string `toml:"paths" json:"paths"`
}

// Paths are the configuration's skills.paths, as loaded (absolute).
func Paths(cfg *config.Config) []string { return config.TableOf[Table](cfg, table).Paths }

// SetPaths replaces the configuration's skills.paths (the demo's none, a
// test's); other copies of cfg keep theirs.
func SetPaths(cfg *config.Config, ps []string) { config.SetTable(cfg, table, Table{Paths: ps}) }

// resolvePaths makes the playbook directories absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	SetPaths(cfg, r.All(Paths(cfg)))
	return nil
}

// checkConfig reports an empty playbook directory.
func checkConfig(cfg *config.Config, c *config.Checker) {
	c.Paths("skills.paths", Paths(cfg))
}

// summaryLines says the built-in playbooks are read, and which directories
// beside them.
func summaryLines(cfg *config.Config) []string {
	line := "skills: built-in"
	if ps := Paths(cfg); len(ps) > 0 {
		line += " + " + strings.Join(ps, ", ")
	}
	return []string{line}
}

// example is the [skills] table of SPEC and the registry's tests.
const example = `[skills]
paths = ["./skills"]
`
