package openai

import (
	"fmt"
	"strconv"

	"github.com/superbiz/superbiz/internal/config"
	adapter "github.com/superbiz/superbiz/pkg/model/openai"
)

// Config is the OpenAI-compatible provider's share of [model]: the key it
// reads at load from the variable api_key_env names, the variable OpenAI's
// SDKs read (OPENAI_BASE_URL sets model.url), and its summary line.
// Its keys carry provider:"openai" in config.Model. The URL it requires is
// checked where a client is built (errURLRequired), not at load: a command
// that never asks the model runs with a half-set model configuration.
func (Provider) Config() config.Part {
	return config.Part{Table: "model", Env: []config.EnvKey{{Var: adapter.EnvBaseURL, Key: "model.url"}}, Resolve: resolveCredentials, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// resolveCredentials reads the API key from the variable model.api_key_env names
// ("" when it is unset: a local server may want none).
func resolveCredentials(cfg *config.Config, getenv func(string) string) {
	if cfg.Model.APIKeyEnv != "" {
		cfg.Model.APIKey = config.NewSecret(getenv(cfg.Model.APIKeyEnv))
	}
}

// errURLRequired is the error of a client asked for with no server URL.
var errURLRequired = fmt.Errorf("model.url is not set, and the openai provider needs the server's base URL, e.g. \"http://127.0.0.1:8000/v1\" (vLLM) or \"https://api.openai.com/v1\": give --url, set $%s, or set model.url in the config file", adapter.EnvBaseURL)

// summaryLines is the model line when this is the provider; the key's value
// never appears, only whether its variable is set.
func summaryLines(cfg *config.Config) []string {
	m := cfg.Model
	if m.Provider != config.ProviderOpenAI {
		return nil
	}
	key := "unset"
	if !m.APIKey.IsZero() {
		key = "set"
	}
	return []string{fmt.Sprintf("model: %s%s at %s%s (provider openai%s, key $%s %s, stream %t, structured %s, temperature %s, language %s, request_timeout %s)",
		m.Name, cfg.From("model.name"), m.URL.Redacted(), cfg.From("model.url"), cfg.From("model.provider"), m.APIKeyEnv, key,
		m.Stream, m.Structured, strconv.FormatFloat(m.Temperature, 'g', -1, 64), m.Language, config.FormatDuration(m.RequestTimeout))}
}

// example is [model] on an OpenAI-compatible server; it loads alone, for
// [model] picks one provider.
const example = `[model]
provider = "openai"
url = "http://127.0.0.1:8000/v1"
`
