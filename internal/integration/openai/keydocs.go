package openai

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"model.url":         {Default: "none; required with `openai`", Accepted: "the base URL to which `/chat/completions`, `/models` and `/embeddings` are appended (e.g. `http://127.0.0.1:8000/v1`); validated like `model.host` (`http`/`https`, host, port, optional path, no query or fragment); a password in it is sent as basic authentication and masked everywhere; `OPENAI_BASE_URL` overrides it"},
		"model.api_key_env": {Accepted: "the name of the variable holding the key, sent as `Authorization: Bearer`; optional (local servers need none); the key never appears in any output, error, run store or request record"},
		"model.stream":      {Accepted: "`false` asks for whole answers instead of SSE (for servers that stream tool calls wrongly, e.g. Ollama's `/v1`)"},
		"model.structured":  {Accepted: "`json_schema` (`response_format` json_schema, strict), `json_object` (`response_format` json_object, the schema in the prompt) or `none` (the schema in the prompt only)"},
	}
}
