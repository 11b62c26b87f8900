package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/model/openai"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/model"
)

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

// OpenAIModel checks, for model.provider = "openai": the provider and its
// URL (masked), whether the key's variable is set (never its value), that
// /models lists the model, that the model calls a tool when one is
// required, and that it answers a JSON schema. A failed step skips the
// later ones, whose answers would only repeat the same cause.
func OpenAIModel(ctx context.Context, cfg *config.Config) []Result {
	m := cfg.Model
	later := func(why string) []Result {
		return []Result{Skipped(checkModel, why), Skipped(checkToolCall, why), Skipped(checkStructured, why)}
	}
	key := Passed(checkAPIKey, fmt.Sprintf("$%s is set (its value is never shown)", m.APIKeyEnv))
	if m.APIKey.IsZero() {
		key = Passed(checkAPIKey, fmt.Sprintf("$%s is not set: no key is sent (fine for a local server that wants none)", m.APIKeyEnv))
	}
	c, err := openai.New(openai.Options{
		URL: m.URL.Reveal(), Model: m.Name, APIKey: m.APIKey.Reveal(), APIKeyEnv: m.APIKeyEnv,
		Temperature: m.Temperature, Stream: m.Stream, Structured: m.Structured, RequestTimeout: min(m.RequestTimeout, Timeout),
	})
	if err != nil {
		return append([]Result{Failed(checkOpenAI, err.Error(), "fix model.url / model.name in the config, or "+config.EnvOpenAIBaseURL+" / --model"), key}, later("not checked: no usable client")...)
	}
	host := c.Host()
	vctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ids, err := c.Models(vctx)
	if err != nil {
		hint := fmt.Sprintf("check that %s is the API's base URL (usually ending in /v1) and look at the server's log", host)
		switch me := model.AsError(err); {
		case me != nil && (me.Kind == model.ErrUnreachable || me.Kind == model.ErrTimeout):
			hint = fmt.Sprintf("start the model server or point model.url / %s at a running one (tried %s)", config.EnvOpenAIBaseURL, host)
		case me != nil && (me.Status == 401 || me.Status == 403):
			hint = fmt.Sprintf("put the server's API key in $%s (model.api_key_env names the variable)", m.APIKeyEnv)
			if !m.APIKey.IsZero() {
				key = Failed(checkAPIKey, fmt.Sprintf("$%s is set but %s refused it (HTTP %d)", m.APIKeyEnv, host, me.Status), hint)
			} else {
				key = Failed(checkAPIKey, fmt.Sprintf("$%s is not set and %s wants a key (HTTP %d)", m.APIKeyEnv, host, me.Status), hint)
			}
		}
		return append([]Result{Failed(checkOpenAI, err.Error(), hint), key}, later("not checked: /models could not be read")...)
	}
	out := []Result{Passed(checkOpenAI, fmt.Sprintf("%s answers /models (provider openai, stream %t, structured %s)", host, m.Stream, m.Structured)), key}
	if !slices.Contains(ids, m.Name) {
		return append(out, Failed(checkModel, fmt.Sprintf("%s is not listed by %s/models (listed: %s)", m.Name, host, listedModels(ids)), "set model.name (or --model) to an id exactly as /models lists it"),
			Skipped(checkToolCall, "not checked: the model is not listed"), Skipped(checkStructured, "not checked: the model is not listed"))
	}
	out = append(out, Passed(checkModel, m.Name+" is listed"))
	return append(out, toolProbe(ctx, c), structuredProbe(ctx, c))
}

// toolProbe asks for a call of probeTool and says whether one came.
func toolProbe(ctx context.Context, c *openai.Client) Result {
	pctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	resp, err := c.Chat(pctx, model.Request{Tools: []model.Tool{probeTool}, Messages: []model.Message{
		{Role: model.RoleSystem, Content: "You are a health check. Call the tool report_status with status \"ok\". Do not answer in text."},
		{Role: model.RoleUser, Content: "Run the check now."},
	}})
	hint := "enable tool calling on the server: vLLM needs --enable-auto-tool-choice --tool-call-parser <the model's parser, e.g. hermes>; llama.cpp's llama-server needs --jinja; or choose a model with tool support"
	if err != nil {
		return Failed(checkToolCall, err.Error(), hint)
	}
	for _, tc := range resp.Message.ToolCalls {
		if tc.Name == probeTool.Name {
			return Passed(checkToolCall, fmt.Sprintf("the model called %s(%s) when asked to", tc.Name, textclip.Bytes(string(tc.Arguments), 80)))
		}
	}
	return Failed(checkToolCall, fmt.Sprintf("the model answered %q instead of calling the required tool", textclip.Bytes(strings.TrimSpace(resp.Message.Content), 120)), hint)
}

// structuredProbe asks for probeSchema and checks the answer holds to it.
func structuredProbe(ctx context.Context, c *openai.Client) Result {
	pctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	resp, err := c.Chat(pctx, model.Request{Format: probeSchema, Messages: []model.Message{
		{Role: model.RoleUser, Content: "Reply with the JSON object {\"status\": \"ok\"}."},
	}})
	hint := "set model.structured = \"json_object\" or \"none\" for a server that ignores or refuses response_format json_schema"
	if err != nil {
		return Failed(checkStructured, err.Error(), hint)
	}
	var v struct {
		Status *string `json:"status"`
	}
	text := strings.TrimSpace(resp.Message.Content)
	if json.Unmarshal([]byte(text), &v) != nil || v.Status == nil {
		return Failed(checkStructured, fmt.Sprintf("the answer %q does not follow the schema", textclip.Bytes(text, 120)), hint)
	}
	return Passed(checkStructured, "the model answered a JSON object that follows the schema")
}
