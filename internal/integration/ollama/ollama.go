// Package ollama is the Ollama model provider (model.provider = "ollama"):
// its client built from [model], its doctor checks (server, model pulled,
// tool calling) and its hints. The wire adapter is pkg/model/ollama.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/model"
	adapter "github.com/superbiz/superbiz/pkg/model/ollama"
)

// Provider is the Ollama provider; its zero value is ready.
type Provider struct{}

// Name is model.provider's value.
func (Provider) Name() string { return config.ProviderOllama }

// Client builds the adapter from [model]: host, num_ctx, temperature, think.
func (Provider) Client(m config.Model, name string, timeout time.Duration) (integration.Client, error) {
	return client(m, name, timeout)
}

// client builds the adapter, saying an option it refuses in the CLI's
// words (the adapter, in pkg/, names no flag).
func client(m config.Model, name string, timeout time.Duration) (*adapter.Client, error) {
	c, err := adapter.New(adapter.Options{
		Host: m.Host.Reveal(), Model: name, NumCtx: m.NumCtx,
		Temperature: m.Temperature, Think: m.Think, RequestTimeout: timeout,
	})
	var oe *model.OptionError
	switch {
	case !errors.As(err, &oe):
	case oe.Option == "Host":
		return nil, fmt.Errorf("ollama: model.host (or --host / %s): %w", adapter.EnvHost, oe.Err)
	case oe.Option == "Model":
		return nil, errors.New("ollama: model name is empty: set model.name (or --model / SUPERBIZ_MODEL), e.g. qwen3:8b")
	}
	return c, err
}

// ServerHint tells a person how to get Ollama to answer.
func (Provider) ServerHint(cfg *config.Config) string {
	return fmt.Sprintf("hint: start Ollama with `ollama serve` (and `ollama pull %s`), or point --host / OLLAMA_HOST at a running server (tried %s)", cfg.Model.Name, cfg.Model.Endpoint())
}

// Hint tells a person what to do about the model failure me, by its kind
// and HTTP status.
func (p Provider) Hint(cfg *config.Config, me *model.Error) string {
	host, name := cfg.Model.Endpoint(), cfg.Model.Name
	return integration.ModelHints{
		Server:   p.ServerHint(cfg),
		NotFound: fmt.Sprintf("hint: pull the model on the server (`ollama pull %s`) or choose a pulled one with --model (tried %s)", name, host),
		NoTools:  fmt.Sprintf("hint: %s has no native tool calling; choose a model that has (e.g. qwen3:8b) with --model; `superbiz doctor` checks it", name),
		Denied: func(status int) string {
			return fmt.Sprintf("hint: %s (or a proxy in front of it) refused the credentials (HTTP %d): check the key or the user:password in --host / OLLAMA_HOST, and the proxy's authentication", host, status)
		},
		Failed:   fmt.Sprintf("hint: the model server failed while answering: check `ollama ps` and the Ollama server log (out of memory, a crashed runner); if a proxy stands in front of %s, check that it reaches Ollama", host),
		Protocol: fmt.Sprintf("hint: %s did not answer like the Ollama API (a cut stream, an HTML page or a malformed line): check that --host points at Ollama itself and that no proxy cuts, buffers or rewrites the stream; `ollama ps` shows whether the model is still loaded", host),
		Timeout:  fmt.Sprintf("hint: the model did not answer within model.request_timeout: check `ollama ps` (still loading? too large for this machine?) or raise model.request_timeout (tried %s)", host),
		Other:    fmt.Sprintf("hint: the server at %s rejected the request: `superbiz doctor` checks the server version, the model and its tool support", host),
	}.For(me)
}

// EmbedHint is the fix when name, knowledge.embed_model, could not embed.
func (Provider) EmbedHint(name, host string, err error) string {
	return integration.EmbedHints{
		Down:   fmt.Sprintf("start Ollama with `ollama serve` (then `ollama pull %s`) or set --host/OLLAMA_HOST (tried %s)", name, host),
		Failed: fmt.Sprintf("check the Ollama server log at %s; `ollama pull %s` if the model is missing", host, name),
		Other:  fmt.Sprintf("run `ollama pull %s` on %s, or choose an embedding model in knowledge.embed_model", name, host),
	}.For(err)
}

// Doctor checks, in order, that Ollama answers, that the model is pulled
// there and that it can call tools, with the client a run uses; a failed
// step skips the later ones, whose answers would only repeat the same cause.
func (Provider) Doctor(ctx context.Context, cfg *config.Config) []doctor.Result {
	name := cfg.Model.Name
	c, err := client(cfg.Model, name, min(cfg.Model.RequestTimeout, doctor.Timeout))
	if err != nil {
		return []doctor.Result{
			doctor.Failed("ollama", err.Error(), "fix model.host / model.name in the config, or --host / --model"),
			doctor.Skipped("model", "not checked: no usable Ollama client"),
			doctor.Skipped("tool calling", "not checked: no usable Ollama client"),
		}
	}
	host := c.Host()

	vctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	v, err := c.Version(vctx)
	if err != nil {
		hint := fmt.Sprintf("check that %s is an Ollama server and look at its log", host)
		if model.KindOf(err) == model.ErrUnreachable || model.KindOf(err) == model.ErrTimeout {
			hint = fmt.Sprintf("start Ollama with `ollama serve` or set --host/OLLAMA_HOST (tried %s)", host)
		}
		return []doctor.Result{
			doctor.Failed("ollama", err.Error(), hint),
			doctor.Skipped("model", "not checked: Ollama is not reachable"),
			doctor.Skipped("tool calling", "not checked: Ollama is not reachable"),
		}
	}
	out := []doctor.Result{doctor.Passed("ollama", fmt.Sprintf("%s reachable (Ollama %s)", host, v))}

	has, err := c.HasModel(vctx)
	switch {
	case err != nil:
		return append(out,
			doctor.Failed("model", err.Error(), fmt.Sprintf("check that %s is an Ollama server and look at its log", host)),
			doctor.Skipped("tool calling", "not checked: the model list could not be read"))
	case !has:
		pulled, err := c.Models(vctx)
		listed := doctor.Listed(pulled)
		if err != nil {
			listed = "the list could not be read: " + err.Error()
		}
		return append(out,
			doctor.Failed("model", fmt.Sprintf("%s is not pulled on %s (pulled: %s)", name, host, listed), fmt.Sprintf("run `ollama pull %s`, or choose a pulled model with --model / SUPERBIZ_MODEL", name)),
			doctor.Skipped("tool calling", "not checked: the model is missing"))
	}
	out = append(out, doctor.Passed("model", name+" is present"))

	caps, err := c.Show(vctx, name)
	switch {
	case err != nil:
		out = append(out, doctor.Failed("tool calling", err.Error(), fmt.Sprintf("check that %s is an Ollama server and look at its log", host)))
	case !slices.Contains(caps, "tools"):
		out = append(out, doctor.Failed("tool calling", fmt.Sprintf("%s does not support tools (capabilities: %s)", name, capsText(caps)), toolModelHint(vctx, c, name)))
	default:
		out = append(out, doctor.Passed("tool calling", fmt.Sprintf("%s supports tools (capabilities: %s)", name, capsText(caps))))
	}
	return out
}

// suggestedToolModels are named, in order, when no pulled model other than
// the failed one supports tools; the failed model is never among those named.
var suggestedToolModels = []string{"qwen3:8b", "llama3.1:8b"}

// toolModelHint is the fix for a model without tool support: the other
// pulled models that report the tools capability (at most
// doctor.MaxListed asked), else a model to pull; never the failed model itself.
func toolModelHint(ctx context.Context, c *adapter.Client, failed string) string {
	pulled, err := c.Models(ctx)
	var capable []string
	if err == nil {
		asked := 0
		for _, m := range pulled {
			if adapter.SameModel(m, failed) {
				continue
			}
			if asked++; asked > doctor.MaxListed {
				break
			}
			if caps, err := c.Show(ctx, m); err == nil && slices.Contains(caps, "tools") {
				capable = append(capable, m)
			}
		}
	}
	if len(capable) > 0 {
		return fmt.Sprintf("choose a pulled model with tool support with --model / SUPERBIZ_MODEL: %s", doctor.Listed(capable))
	}
	for _, m := range suggestedToolModels {
		if !adapter.SameModel(m, failed) {
			return fmt.Sprintf("pull a model with tool support (`ollama pull %s`) and choose it with --model / SUPERBIZ_MODEL", m)
		}
	}
	return "pull a model with tool support and choose it with --model / SUPERBIZ_MODEL"
}

func capsText(caps []string) string {
	if len(caps) == 0 {
		return "none reported"
	}
	return strings.Join(caps, ", ")
}
