package playbooks

import (
	"strings"

	"github.com/superbiz/superbiz/internal/config"
)

// Part is the [skills] share of the configuration: its paths' rule and its
// summary line.
type Part struct{}

// Config is the source's share of the configuration.
func (Source) Config() config.Part { return Part{} }

// Table is [skills].
func (Part) Table() string { return "skills" }

// Check reports an empty playbook directory.
func (Part) Check(cfg *config.Config, c *config.Checker) {
	c.Paths("skills.paths", cfg.Skills.Paths)
}

// Summary says the built-in playbooks are read, and which directories
// beside them.
func (Part) Summary(cfg *config.Config) []string {
	line := "skills: built-in"
	if ps := cfg.Skills.Paths; len(ps) > 0 {
		line += " + " + strings.Join(ps, ", ")
	}
	return []string{line}
}
