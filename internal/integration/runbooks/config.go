package runbooks

import "github.com/superbiz/superbiz/internal/config"

// Config is the [knowledge] share of the configuration: its paths,
// resolved at load, their rule and its summary line.
func (Source) Config() config.Part {
	return config.Part{Table: "knowledge", Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// resolvePaths makes the runbook directories absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	cfg.Knowledge.Paths = r.All(cfg.Knowledge.Paths)
	return nil
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
