package ollama

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"model.host":    {Accepted: "an Ollama URL, normalised like Ollama (`http://` and port 11434 added to a bare host; port 80 or 443 for a URL without one); only `http` and `https`; an IPv6 address needs both brackets (`http://[::1]:11434`); a path (a proxy prefix) is kept without its trailing slash; a bad scheme, host or port, a query or a fragment is a configuration error, also from `--host` and `OLLAMA_HOST`; a password in it is masked everywhere"},
		"model.num_ctx": {},
		"model.think":   {Accepted: "Ollama's `think`, sent explicitly on every request"},
	}
}
