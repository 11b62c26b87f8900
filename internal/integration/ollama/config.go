package ollama

import (
	"fmt"
	"strconv"

	"github.com/superbiz/superbiz/internal/config"
	adapter "github.com/superbiz/superbiz/pkg/model/ollama"
)

// Config is Ollama's share of [model]: its summary line and the variable
// Ollama's own clients read (OLLAMA_HOST sets model.host). Its keys (host,
// num_ctx, think) carry provider:"ollama" in config.Model, which is how a
// key set for the other provider is refused.
func (Provider) Config() config.Part {
	return config.Part{Table: "model", Env: []config.EnvKey{{Var: adapter.EnvHost, Key: "model.host"}}, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// summaryLines is the model line when Ollama is the provider: the model, the
// host (password masked) and the keys that reach the server.
func summaryLines(cfg *config.Config) []string {
	m := cfg.Model
	if m.Provider != config.ProviderOllama {
		return nil
	}
	return []string{fmt.Sprintf("model: %s%s at %s%s (num_ctx %d, temperature %s, think %t, language %s, request_timeout %s)",
		m.Name, cfg.From("model.name"), m.Host.Redacted(), cfg.From("model.host"),
		m.NumCtx, strconv.FormatFloat(m.Temperature, 'g', -1, 64), m.Think,
		m.Language, config.FormatDuration(m.RequestTimeout))}
}

// example is [model] on Ollama, the default provider.
const example = `[model]
provider = "ollama"
host = "http://127.0.0.1:11434"
`
