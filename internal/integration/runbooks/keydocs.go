package runbooks

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"knowledge.paths":       {Type: "array of paths", Accepted: "runbook directories or Markdown files; `[]` disables lookup_knowledge"},
		"knowledge.embed_model": {Default: "`\"\"` (off)", Accepted: "an embedding model of the chosen provider: an Ollama one on `model.host` (e.g. `bge-m3`, multilingual, or `nomic-embed-text`), or one the openai provider's server serves on `/embeddings`; set, runbook search fuses BM25 and vector similarity (see [Semantic runbook search](#semantic-runbook-search)); empty, search is BM25 only"},
	}
}
