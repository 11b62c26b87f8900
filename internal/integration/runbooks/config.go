package runbooks

import "github.com/superbiz/superbiz/internal/config"

// Config is the [knowledge] share of the configuration: its paths' rule and
// its summary line.
func (Source) Config() config.Part {
	return config.Part{Table: "knowledge", Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// checkConfig reports an empty runbook directory.
func checkConfig(cfg *config.Config, c *config.Checker) {
	c.Paths("knowledge.paths", cfg.Knowledge.Paths)
}

// summaryLines lists the runbook directories.
func summaryLines(cfg *config.Config) []string {
	return []string{"knowledge: " + config.ListOrNone(cfg.Knowledge.Paths)}
}

// example is the [knowledge] table of SPEC and the registry's tests.
const example = `[knowledge]
paths = ["./runbooks"]
`
