package runbooks

import "github.com/superbiz/superbiz/internal/config"

// Part is the [knowledge] share of the configuration: its paths' rule and
// its summary line.
type Part struct{}

// Config is the source's share of the configuration.
func (Source) Config() config.Part { return Part{} }

// Table is [knowledge].
func (Part) Table() string { return "knowledge" }

// Check reports an empty runbook directory.
func (Part) Check(cfg *config.Config, c *config.Checker) {
	c.Paths("knowledge.paths", cfg.Knowledge.Paths)
}

// Summary lists the runbook directories.
func (Part) Summary(cfg *config.Config) []string {
	return []string{"knowledge: " + config.ListOrNone(cfg.Knowledge.Paths)}
}
