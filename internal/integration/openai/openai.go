// Package openai is the OpenAI-compatible model provider (model.provider =
// "openai": vLLM, llama.cpp's llama-server, LM Studio, LiteLLM, OpenAI): its
// client built from [model], its doctor checks (URL, key, model listed, a
// tool-call and a structured-output probe) and its hints. The wire adapter
// is pkg/model/openai.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/model"
	adapter "github.com/superbiz/superbiz/pkg/model/openai"
)

// Provider is the OpenAI-compatible provider; its zero value is ready.
type Provider struct{}

// Name is model.provider's value.
func (Provider) Name() string { return config.ProviderOpenAI }

// Client builds the adapter from [model]: url, the key read from
// api_key_env, temperature, stream, structured.
func (Provider) Client(m config.Model, name string, timeout time.Duration) (integration.Client, error) {
	return client(m, name, timeout)
}

func client(m config.Model, name string, timeout time.Duration) (*adapter.Client, error) {
	if m.URL.IsZero() {
		return nil, errURLRequired
	}
	c, err := adapter.New(adapter.Options{
		URL: m.URL.Reveal(), Model: name, APIKey: m.APIKey.Reveal(), APIKeyEnv: m.APIKeyEnv,
		Temperature: m.Temperature, Stream: m.Stream, Structured: m.Structured, RequestTimeout: timeout,
	})
	var oe *model.OptionError
	switch {
	case !errors.As(err, &oe):
	case oe.Option == "URL":
		return nil, fmt.Errorf("openai: model.url (or %s): %w", adapter.EnvBaseURL, oe.Err)
	case oe.Option == "Model":
		return nil, errors.New("openai: model name is empty: set model.name (or --model / SUPERBIZ_MODEL) to the id the server's /models lists")
	}
	return c, err
}

// ServerHint tells a person how to get an OpenAI-compatible server to answer.
func (Provider) ServerHint(cfg *config.Config) string {
	return fmt.Sprintf("hint: start the model server (vLLM, llama-server, LM Studio, LiteLLM, ...) or point model.url / %s at a running one (tried %s)", adapter.EnvBaseURL, cfg.Model.Endpoint())
}

// Hint tells a person what to do about the model failure me; the adapter's
// message already names the key's variable, the listed models or the
// server's flag.
func (p Provider) Hint(cfg *config.Config, me *model.Error) string {
	host, name := cfg.Model.Endpoint(), cfg.Model.Name
	return integration.ModelHints{
		Server:   p.ServerHint(cfg),
		NotFound: fmt.Sprintf("hint: set model.name (or --model) to an id the server's /models lists (tried %q at %s)", name, host),
		NoTools:  fmt.Sprintf("hint: %s will not call tools for %s: enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser; llama.cpp: --jinja); `superbiz doctor` probes it", host, name),
		Denied: func(int) string {
			return fmt.Sprintf("hint: put the server's API key in $%s (model.api_key_env names the variable), or check that the key may use %s", cfg.Model.APIKeyEnv, name)
		},
		RateLimited: fmt.Sprintf("hint: %s kept rate-limiting the requests: wait, raise the key's limits, or raise model.request_timeout so the retries fit", host),
		Failed:      fmt.Sprintf("hint: the model server failed while answering: check its log (out of memory, a crashed worker); if a proxy stands in front of %s, check that it reaches the server", host),
		Protocol:    fmt.Sprintf("hint: %s did not answer like an OpenAI-compatible API (a cut stream, an HTML page or a malformed data line): check that model.url is the API's base URL (usually ending in /v1) and that no proxy cuts or buffers the stream; model.stream = false avoids streaming", host),
		Timeout:     fmt.Sprintf("hint: the model did not answer within model.request_timeout: check the server's load or raise model.request_timeout (tried %s)", host),
		Other:       fmt.Sprintf("hint: the server at %s rejected the request: `superbiz doctor` checks the URL, the key, the model, tool calling and structured output", host),
	}.For(me)
}

// EmbedHint is the fix when knowledge.embed_model could not embed.
func (Provider) EmbedHint(_, host string, err error) string {
	return integration.EmbedHints{
		Down:  fmt.Sprintf("start the model server or point model.url / %s at a running one (tried %s)", adapter.EnvBaseURL, host),
		Other: fmt.Sprintf("set knowledge.embed_model to an embedding model the server at %s lists on /models and serves on /embeddings", host),
	}.For(err)
}

// The doctor lines of the openai provider.
const (
	checkOpenAI     = "openai"
	checkAPIKey     = "api key"
	checkModel      = "model"
	checkToolCall   = "tool calling"
	checkStructured = "structured output"
)

// probeTool is the one tool the tool-call probe offers and requires.
var probeTool = model.Tool{Name: "report_status", Description: "Report that the check ran.", Parameters: json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["ok"]}},"required":["status"]}`)}

// probeSchema is what the structured-output probe asks for.
var probeSchema = json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["ok"]}},"required":["status"],"additionalProperties":false}`)

// Doctor checks, for model.provider = "openai", with the client a run uses: the provider and its
// URL (masked), whether the key's variable is set (never its value), that
// /models lists the model, that the model calls a tool when one is
// required, and that it answers a JSON schema. A failed step skips the
// later ones, whose answers would only repeat the same cause.
func (Provider) Doctor(ctx context.Context, cfg *config.Config) []doctor.Result {
	m := cfg.Model
	later := func(why string) []doctor.Result {
		return []doctor.Result{doctor.Skipped(checkModel, why), doctor.Skipped(checkToolCall, why), doctor.Skipped(checkStructured, why)}
	}
	key := doctor.Passed(checkAPIKey, fmt.Sprintf("$%s is set (its value is never shown)", m.APIKeyEnv))
	if m.APIKey.IsZero() {
		key = doctor.Passed(checkAPIKey, fmt.Sprintf("$%s is not set: no key is sent (fine for a local server that wants none)", m.APIKeyEnv))
	}
	c, err := client(m, m.Name, min(m.RequestTimeout, doctor.Timeout))
	if err != nil {
		return append([]doctor.Result{doctor.Failed(checkOpenAI, err.Error(), "fix model.url / model.name in the config, or --url / "+adapter.EnvBaseURL+" / --model"), key}, later("not checked: no usable client")...)
	}
	host := c.Host()
	vctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	ids, err := c.Models(vctx)
	if err != nil {
		hint := fmt.Sprintf("check that %s is the API's base URL (usually ending in /v1) and look at the server's log", host)
		switch me := model.AsError(err); {
		case me != nil && (me.Kind == model.ErrUnreachable || me.Kind == model.ErrTimeout):
			hint = fmt.Sprintf("start the model server or point model.url / %s at a running one (tried %s)", adapter.EnvBaseURL, host)
		case me != nil && (me.Status == 401 || me.Status == 403):
			keyHint := fmt.Sprintf("put the server's API key in $%s (model.api_key_env names the variable)", m.APIKeyEnv)
			if !m.APIKey.IsZero() {
				key = doctor.Failed(checkAPIKey, fmt.Sprintf("$%s is set but %s refused it (HTTP %d)", m.APIKeyEnv, host, me.Status), keyHint)
			} else {
				key = doctor.Failed(checkAPIKey, fmt.Sprintf("$%s is not set and %s wants a key (HTTP %d)", m.APIKeyEnv, host, me.Status), keyHint)
			}
			// the key's line says the fix; this one says only where to look,
			// so the same hint is not printed twice (issue 40 #13)
			hint = fmt.Sprintf("the server answers but refuses the request: see the %s check", checkAPIKey)
		}
		return append([]doctor.Result{doctor.Failed(checkOpenAI, err.Error(), hint), key}, later("not checked: /models could not be read")...)
	}
	out := []doctor.Result{doctor.Passed(checkOpenAI, fmt.Sprintf("%s answers /models (provider openai, stream %t, structured %s)", host, m.Stream, m.Structured)), key}
	if !slices.Contains(ids, m.Name) {
		return append(out, doctor.Failed(checkModel, fmt.Sprintf("%s is not listed by %s/models (listed: %s)", m.Name, host, doctor.Listed(ids)), "set model.name (or --model) to an id exactly as /models lists it"),
			doctor.Skipped(checkToolCall, "not checked: the model is not listed"), doctor.Skipped(checkStructured, "not checked: the model is not listed"))
	}
	out = append(out, doctor.Passed(checkModel, m.Name+" is listed"))
	return append(out, toolProbe(ctx, c), structuredProbe(ctx, c))
}

// toolProbe asks for a call of probeTool and says whether one came.
func toolProbe(ctx context.Context, c *adapter.Client) doctor.Result {
	pctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	resp, err := c.Chat(pctx, model.Request{Tools: []model.Tool{probeTool}, Messages: []model.Message{
		{Role: model.RoleSystem, Content: "You are a health check. Call the tool report_status with status \"ok\". Do not answer in text."},
		{Role: model.RoleUser, Content: "Run the check now."},
	}})
	hint := "enable tool calling on the server: vLLM needs --enable-auto-tool-choice --tool-call-parser <the model's parser, e.g. hermes>; llama.cpp's llama-server needs --jinja; or choose a model with tool support"
	if err != nil {
		return doctor.Failed(checkToolCall, err.Error(), hint)
	}
	for _, tc := range resp.Message.ToolCalls {
		if tc.Name == probeTool.Name {
			return doctor.Passed(checkToolCall, fmt.Sprintf("the model called %s(%s) when asked to", tc.Name, textclip.Bytes(string(tc.Arguments), 80)))
		}
	}
	return doctor.Failed(checkToolCall, fmt.Sprintf("the model answered %q instead of calling the required tool", textclip.Bytes(strings.TrimSpace(resp.Message.Content), 120)), hint)
}

// structuredProbe asks for probeSchema and checks the answer holds to it.
func structuredProbe(ctx context.Context, c *adapter.Client) doctor.Result {
	pctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	resp, err := c.Chat(pctx, model.Request{Format: probeSchema, Messages: []model.Message{
		{Role: model.RoleUser, Content: "Reply with the JSON object {\"status\": \"ok\"}."},
	}})
	hint := "set model.structured = \"json_object\" or \"none\" for a server that ignores or refuses response_format json_schema"
	if err != nil {
		return doctor.Failed(checkStructured, err.Error(), hint)
	}
	var v struct {
		Status *string `json:"status"`
	}
	text := strings.TrimSpace(resp.Message.Content)
	if json.Unmarshal([]byte(text), &v) != nil || v.Status == nil {
		return doctor.Failed(checkStructured, fmt.Sprintf("the answer %q does not follow the schema", textclip.Bytes(text, 120)), hint)
	}
	return doctor.Passed(checkStructured, "the model answered a JSON object that follows the schema")
}
