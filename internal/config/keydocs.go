package config

// OwnDocs describe config's own keys (the run store, the [model] keys every
// provider shares, [budget], [limits]) in docs/SPEC.md's
// generated Keys table; each integration's share has its own (Part.Docs).
func OwnDocs() map[string]KeyDoc {
	return map[string]KeyDoc{
		"db":                     {Type: "path", Default: "`$XDG_DATA_HOME/superbiz/superbiz.db`", Accepted: "the run store file"},
		"model.provider":         {Accepted: "`ollama` or `openai` (any OpenAI-compatible server, see [Model providers](#model-providers))"},
		"model.name":             {Accepted: "a model name without spaces: Ollama's, or the id exactly as the server's `/models` lists it"},
		"model.temperature":      {},
		"model.request_timeout":  {},
		"model.language":         {Accepted: "`auto`, `zh`, `en`: the prompts' language; `auto` follows the query's script"},
		"budget.max_model_calls": {},
		"budget.max_tool_calls":  {},
		"budget.max_tokens":      {},
		"budget.max_run_bytes":   {Accepted: ", and at least `limits.input`"},
		"budget.deadline":        {},
		"budget.max_no_gain":     {Accepted: ": consecutive NO_GAIN evaluations before STOP_REQUIRED"},
		"limits.query":           {},
		"limits.previous_turn":   {},
		"limits.input":           {Accepted: ", and at least `limits.query` and `limits.previous_turn`"},
		"limits.draft":           {},
		"limits.observation":     {},
	}
}
