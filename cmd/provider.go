package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/model/ollama"
	"github.com/superbiz/superbiz/internal/model/openai"
	"github.com/superbiz/superbiz/pkg/model"
)

// modelClient is what cmd needs of either provider's adapter: the model
// port and the embedder, the server it talks to (masked) and whether that
// server serves the configured model.
type modelClient interface {
	model.ChatModel
	model.Embedder
	Host() string
	HasModel(ctx context.Context) (bool, error)
}

// newModelClient builds the adapter of cfg's model.provider for the model
// name, each round bounded by timeout; the one place a provider is chosen.
func newModelClient(cfg *config.Config, name string, timeout time.Duration) (modelClient, error) {
	m := cfg.Model
	if m.Provider == config.ProviderOpenAI {
		return openai.New(openai.Options{
			URL: m.URL.Reveal(), Model: name, APIKey: m.APIKey.Reveal(), APIKeyEnv: m.APIKeyEnv,
			Temperature: m.Temperature, Stream: m.Stream, Structured: m.Structured, RequestTimeout: timeout,
		})
	}
	return ollama.New(ollama.Options{
		Host: m.Host.Reveal(), Model: name, NumCtx: m.NumCtx,
		Temperature: m.Temperature, Think: m.Think, RequestTimeout: timeout,
	})
}

// serverHint tells a person how to get a model server to answer.
func serverHint(cfg *config.Config) string {
	if cfg.Model.Provider == config.ProviderOpenAI {
		return fmt.Sprintf("hint: start the model server (vLLM, llama-server, LM Studio, LiteLLM, ...) or point model.url / %s at a running one (tried %s)", config.EnvOpenAIBaseURL, cfg.Model.Endpoint())
	}
	return fmt.Sprintf("hint: start Ollama with `ollama serve` (and `ollama pull %s`), or point --host / OLLAMA_HOST at a running server (tried %s)", cfg.Model.Name, cfg.Model.Endpoint())
}

// modelHint tells a person what to do about the model failure me that
// ended a run: by its kind and HTTP status (nil: the server was not reached).
func modelHint(cfg *config.Config, me *model.Error) string {
	if me == nil || me.Kind == model.ErrUnreachable {
		return serverHint(cfg)
	}
	if cfg.Model.Provider == config.ProviderOpenAI {
		return openAIHint(cfg, me)
	}
	host, name := cfg.Model.Endpoint(), cfg.Model.Name
	switch {
	case me.Kind == model.ErrModelNotFound:
		return fmt.Sprintf("hint: pull the model on the server (`ollama pull %s`) or choose a pulled one with --model (tried %s)", name, host)
	case me.Kind == model.ErrToolsNotSupported:
		return fmt.Sprintf("hint: %s has no native tool calling; choose a model that has (e.g. qwen3:8b) with --model; `superbiz doctor` checks it", name)
	case me.Status == 401 || me.Status == 403:
		return fmt.Sprintf("hint: %s (or a proxy in front of it) refused the credentials (HTTP %d): check the key or the user:password in --host / OLLAMA_HOST, and the proxy's authentication", host, me.Status)
	case me.Kind == model.ErrServer:
		return fmt.Sprintf("hint: the model server failed while answering: check `ollama ps` and the Ollama server log (out of memory, a crashed runner); if a proxy stands in front of %s, check that it reaches Ollama", host)
	case me.Kind == model.ErrProtocol:
		return fmt.Sprintf("hint: %s did not answer like the Ollama API (a cut stream, an HTML page or a malformed line): check that --host points at Ollama itself and that no proxy cuts, buffers or rewrites the stream; `ollama ps` shows whether the model is still loaded", host)
	case me.Kind == model.ErrTimeout:
		return fmt.Sprintf("hint: the model did not answer within model.request_timeout: check `ollama ps` (still loading? too large for this machine?) or raise model.request_timeout (tried %s)", host)
	}
	return fmt.Sprintf("hint: the server at %s rejected the request: `superbiz doctor` checks the server version, the model and its tool support", host)
}

// openAIHint is modelHint for the openai provider; the adapter's message
// already names the key's variable, the listed models or the server's flag.
func openAIHint(cfg *config.Config, me *model.Error) string {
	host, name := cfg.Model.Endpoint(), cfg.Model.Name
	switch {
	case me.Kind == model.ErrModelNotFound:
		return fmt.Sprintf("hint: set model.name (or --model) to an id the server's /models lists (tried %q at %s)", name, host)
	case me.Kind == model.ErrToolsNotSupported:
		return fmt.Sprintf("hint: %s will not call tools for %s: enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser; llama.cpp: --jinja); `superbiz doctor` probes it", host, name)
	case me.Status == 401 || me.Status == 403:
		return fmt.Sprintf("hint: put the server's API key in $%s (model.api_key_env names the variable), or check that the key may use %s", cfg.Model.APIKeyEnv, name)
	case me.Status == 429:
		return fmt.Sprintf("hint: %s kept rate-limiting the requests: wait, raise the key's limits, or raise model.request_timeout so the retries fit", host)
	case me.Kind == model.ErrServer:
		return fmt.Sprintf("hint: the model server failed while answering: check its log (out of memory, a crashed worker); if a proxy stands in front of %s, check that it reaches the server", host)
	case me.Kind == model.ErrProtocol:
		return fmt.Sprintf("hint: %s did not answer like an OpenAI-compatible API (a cut stream, an HTML page or a malformed data line): check that model.url is the API's base URL (usually ending in /v1) and that no proxy cuts or buffers the stream; model.stream = false avoids streaming", host)
	case me.Kind == model.ErrTimeout:
		return fmt.Sprintf("hint: the model did not answer within model.request_timeout: check the server's load or raise model.request_timeout (tried %s)", host)
	}
	return fmt.Sprintf("hint: the server at %s rejected the request: `superbiz doctor` checks the URL, the key, the model, tool calling and structured output", host)
}
