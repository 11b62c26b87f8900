package playbooks

import (
	"strings"

	"github.com/superbiz/superbiz/internal/config"
)

// Config is the [skills] share of the configuration: its paths, resolved at
// load, their rule and its summary line.
func (Source) Config() config.Part {
	return config.Part{Table: "skills", Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// resolvePaths makes the playbook directories absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	cfg.Skills.Paths = r.All(cfg.Skills.Paths)
	return nil
}

// checkConfig reports an empty playbook directory.
func checkConfig(cfg *config.Config, c *config.Checker) {
	c.Paths("skills.paths", cfg.Skills.Paths)
}

// summaryLines says the built-in playbooks are read, and which directories
// beside them.
func summaryLines(cfg *config.Config) []string {
	line := "skills: built-in"
	if ps := cfg.Skills.Paths; len(ps) > 0 {
		line += " + " + strings.Join(ps, ", ")
	}
	return []string{line}
}

// example is the [skills] table of SPEC and the registry's tests.
const example = `[skills]
paths = ["./skills"]
`
