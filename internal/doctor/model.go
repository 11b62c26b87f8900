package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/model/ollama"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/model"
)

// Model checks, in order, that Ollama answers, that the model is
// pulled there and that it can call tools; a failed step skips the later
// ones, whose answers would only repeat the same cause.
func Model(ctx context.Context, cfg *config.Config) []Result {
	if cfg.Model.Provider == config.ProviderOpenAI {
		return OpenAIModel(ctx, cfg)
	}
	name := cfg.Model.Name
	c, err := ollama.New(ollama.Options{
		Host:           cfg.Model.Host.Reveal(),
		Model:          name,
		NumCtx:         cfg.Model.NumCtx,
		Temperature:    cfg.Model.Temperature,
		Think:          cfg.Model.Think,
		RequestTimeout: min(cfg.Model.RequestTimeout, Timeout),
	})
	if err != nil {
		return []Result{
			Failed("ollama", err.Error(), "fix model.host / model.name in the config, or --host / --model"),
			Skipped("model", "not checked: no usable Ollama client"),
			Skipped("tool calling", "not checked: no usable Ollama client"),
		}
	}
	host := c.Host()

	vctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	v, err := c.Version(vctx)
	if err != nil {
		hint := fmt.Sprintf("check that %s is an Ollama server and look at its log", host)
		if model.KindOf(err) == model.ErrUnreachable || model.KindOf(err) == model.ErrTimeout {
			hint = fmt.Sprintf("start Ollama with `ollama serve` or set --host/OLLAMA_HOST (tried %s)", host)
		}
		return []Result{
			Failed("ollama", err.Error(), hint),
			Skipped("model", "not checked: Ollama is not reachable"),
			Skipped("tool calling", "not checked: Ollama is not reachable"),
		}
	}
	out := []Result{Passed("ollama", fmt.Sprintf("%s reachable (Ollama %s)", host, v))}

	has, err := c.HasModel(vctx)
	switch {
	case err != nil:
		return append(out,
			Failed("model", err.Error(), fmt.Sprintf("check that %s is an Ollama server and look at its log", host)),
			Skipped("tool calling", "not checked: the model list could not be read"))
	case !has:
		pulled, err := c.Models(vctx)
		listed := listedModels(pulled)
		if err != nil {
			listed = "the list could not be read: " + err.Error()
		}
		return append(out,
			Failed("model", fmt.Sprintf("%s is not pulled on %s (pulled: %s)", name, host, listed), fmt.Sprintf("run `ollama pull %s`, or choose a pulled model with --model / SUPERBIZ_MODEL", name)),
			Skipped("tool calling", "not checked: the model is missing"))
	}
	out = append(out, Passed("model", name+" is present"))

	caps, err := c.Show(vctx, name)
	switch {
	case err != nil:
		out = append(out, Failed("tool calling", err.Error(), fmt.Sprintf("check that %s is an Ollama server and look at its log", host)))
	case !slices.Contains(caps, "tools"):
		out = append(out, Failed("tool calling", fmt.Sprintf("%s does not support tools (capabilities: %s)", name, capsText(caps)), toolModelHint(vctx, c, name)))
	default:
		out = append(out, Passed("tool calling", fmt.Sprintf("%s supports tools (capabilities: %s)", name, capsText(caps))))
	}
	return out
}

// maxListedModels bounds how many model names a doctor line lists, and
// how many pulled models the tool-calling hint asks /api/show about.
const maxListedModels = 8

// suggestedToolModels are named, in order, when no pulled model other than
// the failed one supports tools; the failed model is never among those named.
var suggestedToolModels = []string{"qwen3:8b", "llama3.1:8b"}

// listedModels names at most maxListedModels models (and how many more),
// or "none".
func listedModels(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	text := strings.Join(names[:min(len(names), maxListedModels)], ", ")
	if more := len(names) - maxListedModels; more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return textclip.Bytes(text, 400)
}

// toolModelHint is the fix for a model without tool support: the other
// pulled models that report the tools capability (at most maxListedModels
// asked), else a model to pull; never the failed model itself.
func toolModelHint(ctx context.Context, c *ollama.Client, failed string) string {
	pulled, err := c.Models(ctx)
	var capable []string
	if err == nil {
		asked := 0
		for _, m := range pulled {
			if ollama.SameModel(m, failed) {
				continue
			}
			if asked++; asked > maxListedModels {
				break
			}
			if caps, err := c.Show(ctx, m); err == nil && slices.Contains(caps, "tools") {
				capable = append(capable, m)
			}
		}
	}
	if len(capable) > 0 {
		return fmt.Sprintf("choose a pulled model with tool support with --model / SUPERBIZ_MODEL: %s", listedModels(capable))
	}
	for _, m := range suggestedToolModels {
		if !ollama.SameModel(m, failed) {
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

// embedCheckName is the doctor line of [knowledge] embed_model.
const embedCheckName = "knowledge embed"

// Embed says whether runbook search is semantic: not configured (BM25
// only), ok (the model embedded a probe text), or unavailable (BM25 only,
// with what to do).
func Embed(ctx context.Context, cfg *config.Config, embedClient func(*config.Config) (EmbedClient, error)) Result {
	name := cfg.Knowledge.EmbedModel
	if name == "" {
		return Skipped(embedCheckName, "not configured: runbook search is BM25 only (set [knowledge] embed_model to an Ollama embedding model for semantic search)")
	}
	c, err := embedClient(cfg)
	if err != nil {
		return Failed(embedCheckName, err.Error(), "fix model.host (model.url for openai) and knowledge.embed_model in the config")
	}
	ectx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	vecs, err := c.Embed(ectx, []string{"superbiz doctor"})
	if err != nil {
		hint := fmt.Sprintf("run `ollama pull %s` on %s, or choose an embedding model in knowledge.embed_model", name, c.Host())
		switch kind := model.KindOf(err); {
		case cfg.Model.Provider == config.ProviderOpenAI:
			hint = fmt.Sprintf("set knowledge.embed_model to an embedding model the server at %s lists on /models and serves on /embeddings", c.Host())
			if kind == model.ErrUnreachable || kind == model.ErrTimeout {
				hint = fmt.Sprintf("start the model server or point model.url / %s at a running one (tried %s)", config.EnvOpenAIBaseURL, c.Host())
			}
		case kind == model.ErrUnreachable || kind == model.ErrTimeout:
			hint = fmt.Sprintf("start Ollama with `ollama serve` (then `ollama pull %s`) or set --host/OLLAMA_HOST (tried %s)", name, c.Host())
		case kind == model.ErrServer || kind == model.ErrProtocol:
			hint = fmt.Sprintf("check the Ollama server log at %s; `ollama pull %s` if the model is missing", c.Host(), name)
		}
		return Warned(embedCheckName, fmt.Sprintf("%s unavailable, runbook search is BM25 only: %v", name, err), hint)
	}
	return Passed(embedCheckName, fmt.Sprintf("%s embeds (%d dimensions): runbook search fuses BM25 and vectors", name, len(vecs[0])))
}
