package runbooks

import "github.com/superbiz/superbiz/internal/config"

// Config is the [knowledge] share of the configuration: the table (Table,
// handed to config by Schema: config has no field for it), its paths,
// resolved at load, their rule and its summary line.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: Table{}, Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [knowledge] table.
const table = "knowledge"

// Table is the [knowledge] table: the runbook directories lookup_knowledge
// indexes, and the embedding model that makes its search semantic.
type Table struct {
	// Paths are absolute directories (relative ones resolved at load).
	Paths []string `toml:"paths" json:"paths" default:"./runbooks"`
	// EmbedModel is the embedding model, on the configured provider's
	// server, that makes runbook search semantic; empty leaves search BM25 only.
	EmbedModel string `toml:"embed_model" json:"embed_model,omitempty" default:""`
}

// Of is the configuration's [knowledge] table, as loaded (its defaults
// when the file has none).
func Of(cfg *config.Config) Table { return config.TableOf[Table](cfg, table) }

// Paths are the configuration's knowledge.paths, as loaded (absolute).
func Paths(cfg *config.Config) []string { return Of(cfg).Paths }

// SetPaths replaces the configuration's knowledge.paths (the demo's
// runbooks, a test's), keeping embed_model; other copies of cfg keep theirs.
func SetPaths(cfg *config.Config, ps []string) {
	t := Of(cfg)
	t.Paths = ps
	config.SetTable(cfg, table, t)
}

// resolvePaths makes the runbook directories absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	SetPaths(cfg, r.All(Paths(cfg)))
	return nil
}

// checkConfig reports an empty runbook directory.
func checkConfig(cfg *config.Config, c *config.Checker) {
	c.Paths("knowledge.paths", Paths(cfg))
}

// summaryLines lists the runbook directories.
func summaryLines(cfg *config.Config) []string {
	return []string{"knowledge: " + config.ListOrNone(Paths(cfg))}
}

// example is the [knowledge] table of SPEC and the registry's tests.
const example = `[knowledge]
paths = ["./runbooks"]
`
