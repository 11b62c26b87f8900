package usecase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/strictjson"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/prompts"
)

// routerAnswer is the router's answer; its tags are the JSON Schema sent as
// Ollama `format` (TestRouterSchemaIntents holds the enum to the intents
// ParseRoute admits).
type routerAnswer struct {
	Intent string `json:"intent" jsonschema:"required,enum=SYSTEM_CHAT,enum=KNOWLEDGE_QUERY,enum=DIAGNOSIS"`
}

// RouterSchema returns the JSON Schema the router's answer must follow, so
// tests and `tools list`-like views can show exactly what the model is sent.
func RouterSchema() json.RawMessage { return schema.Of(routerAnswer{}) }

// maxRouteBytes bounds a router answer: a valid one is about 30 bytes.
const maxRouteBytes = 1024

// routerAttempts is the router's retry policy: one retry, identical input.
const routerAttempts = 2

// routerReserved keeps one model call free for the executor while routing.
const routerReserved = 1

// ErrInvalidRoute marks a router answer that breaks its contract.
var ErrInvalidRoute = errors.New("invalid router answer")

// ParseRoute strictly parses the router's answer: exactly one JSON object
// {"intent": …} (no fence, no prose, no unknown, duplicate or wrong-case
// member) whose intent is SYSTEM_CHAT, KNOWLEDGE_QUERY or DIAGNOSIS. It
// never repairs; the error never quotes the model's text.
func ParseRoute(text string) (string, error) {
	var w struct {
		Intent *string `json:"intent"`
	}
	// The decoder's own message may quote the model's text: never pass it on.
	if err := strictjson.Decode(text, maxRouteBytes, &w); err != nil {
		return "", fmt.Errorf("%w: not the object {\"intent\": …}", ErrInvalidRoute)
	}
	if w.Intent == nil {
		return "", fmt.Errorf("%w: intent is required", ErrInvalidRoute)
	}
	switch *w.Intent {
	case runrecord.IntentSystemChat, runrecord.IntentKnowledgeQuery, runrecord.IntentDiagnosis:
		return *w.Intent, nil
	}
	return "", fmt.Errorf("%w: intent is not SYSTEM_CHAT, KNOWLEDGE_QUERY or DIAGNOSIS", ErrInvalidRoute)
}

// routerInput is the router's single user message: exactly these members.
type routerInput struct {
	Query      string  `json:"query"`
	LastIntent *string `json:"last_intent"`
	LastQuery  *string `json:"last_query"`
}

// RouterRequest is the router's one no-tool, no-memory request: its system
// prompt and the JSON {"query", "last_intent", "last_query"} with the query
// unchanged. The previous turn is context only; an unknown last intent and
// an empty previous turn are sent as null, and the last query is bounded to
// queryLimit bytes.
func RouterRequest(language, query, lastIntent, lastQuery string, queryLimit int) (model.Request, error) {
	in := routerInput{Query: query}
	switch lastIntent {
	case runrecord.IntentSystemChat, runrecord.IntentKnowledgeQuery, runrecord.IntentDiagnosis:
		in.LastIntent = &lastIntent
		if lastQuery != "" {
			if queryLimit > 0 {
				lastQuery = textclip.Bytes(lastQuery, queryLimit)
			}
			in.LastQuery = &lastQuery
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return model.Request{}, fmt.Errorf("router request: %w", err)
	}
	return model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: RouterPrompt(language, query)},
			{Role: model.RoleUser, Content: strings.TrimSuffix(buf.String(), "\n")},
		},
		Format: RouterSchema(),
	}, nil
}

// RouterPrompt is the router's system prompt in the query's language.
func RouterPrompt(language, query string) string {
	if agent.PromptLanguage(language, query) == "zh" {
		return prompts.RouterZH
	}
	return prompts.RouterEN
}

// routeResult is what routing decided: an intent, or why there is none.
type routeResult struct {
	Intent string
	// Stop is set when routing ended without an intent.
	Stop runrecord.StopReason
	// Err is the last failure (model error or invalid answer), for the message.
	Err error
}

// retryableRoute reports whether a failed router round may be retried with
// the identical request: a timeout, a transport or server failure, or a
// broken stream. A refused request (bad request, missing model) would fail
// the same way again.
func retryableRoute(err error) bool {
	switch model.KindOf(err) {
	case model.ErrTimeout, model.ErrUnreachable, model.ErrServer, model.ErrProtocol:
		return true
	}
	return false
}

// route makes the router's calls through the run's model interceptor, with
// the router's memory of the last routed turn: at most two identical
// requests; the run's own interruptions (cancel, deadline, budget) end
// routing at once.
func (d *Deps) route(rc *harness.RunContext, obs Observer, query, lastIntent, lastQuery string) routeResult {
	req, err := RouterRequest(d.Language, query, lastIntent, lastQuery, d.Limits.Query)
	if err != nil {
		return routeResult{Stop: runrecord.StopInternal, Err: err}
	}
	var last error
	for attempt := 1; attempt <= routerAttempts; attempt++ {
		if attempt > 1 {
			notify(obs, StatusRoutingRetry)
		}
		resp, err := rc.CallModel(d.Model, runrecord.PurposeRouter, req, routerReserved)
		if err != nil {
			if r := rc.Interrupted(); r != "" {
				return routeResult{Stop: r, Err: err}
			}
			if r := harness.ReasonOf(err); r != "" {
				return routeResult{Stop: r, Err: err}
			}
			if !retryableRoute(err) {
				return routeResult{Stop: runrecord.StopModelUnavailable, Err: err}
			}
			last = err
			continue
		}
		intent, err := ParseRoute(resp.Message.Content)
		if err == nil {
			return routeResult{Intent: intent}
		}
		last = err
	}
	return routeResult{Stop: runrecord.StopRoutingFailed, Err: last}
}
