// Package ollama is the ChatModel adapter for an Ollama server, built on
// github.com/ollama/ollama/api v0.17.4. It is the only engine package that
// imports the Ollama client: it streams one chat round, accumulates thinking,
// content and tool calls, requires the final done:true chunk, and maps every
// failure to a typed *model.Error whose Kind callers can act on.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/modelhost"
)

// EnvHost is the variable Ollama's own clients read the server's URL from;
// superbiz reads it for model.host (a caller of New reads it itself).
const EnvHost = "OLLAMA_HOST"

// Options are everything a Client needs; nothing is read from the
// environment (the cmd layer resolves flags, env and config).
type Options struct {
	// Host is the server URL, e.g. "http://127.0.0.1:11434"; a bare
	// "host[:port]" means http and port 11434, as OLLAMA_HOST does.
	Host  string
	Model string
	// NumCtx is sent as options.num_ctx on every request (must be > 0).
	NumCtx      int
	Temperature float64
	// Think is sent explicitly on every request (a missing think turns
	// thinking on for thinking models).
	Think bool
	// RequestTimeout bounds one whole round, first byte to done chunk.
	RequestTimeout time.Duration
	// HTTPClient carries transport settings (proxy, TLS); nil means a
	// plain client. Its Timeout should stay zero: RequestTimeout governs.
	HTTPClient *http.Client
}

// Client is an Ollama-backed model.ChatModel plus the read-only checks
// `superbiz doctor` needs. It is safe for concurrent use.
type Client struct {
	opts Options
	host string
	// scrub removes model.host's password, in every form a server may echo
	// it in, from the server's error texts.
	scrub httpsource.Scrubber
	api   *api.Client
	// base and hc serve /api/embed, whose answer is decoded as a stream.
	base *url.URL
	hc   *http.Client
}

var _ model.ChatModel = (*Client)(nil)

// New validates opts and builds a client; it makes no network call.
func New(opts Options) (*Client, error) {
	host, err := modelhost.Parse(opts.Host)
	if err != nil {
		return nil, &model.OptionError{Provider: "ollama", Option: "Host", Err: err}
	}
	// Credentials in the URL (a reverse proxy's basic auth) are sent by
	// net/http but never shown: errors and doctor name the redacted URL.
	base, err := url.Parse(host.Reveal())
	if err != nil {
		// url.Error repeats the input, which may hold a password: not shown.
		return nil, fmt.Errorf("ollama: model.host %s is not a valid URL", host.Redacted())
	}
	if strings.TrimSpace(opts.Model) == "" {
		return nil, &model.OptionError{Provider: "ollama", Option: "Model", Err: errors.New("empty: give the model to run, e.g. qwen3:8b")}
	}
	if opts.NumCtx <= 0 {
		return nil, fmt.Errorf("ollama: num_ctx is %d: set model.num_ctx to the context window in tokens, e.g. 16384", opts.NumCtx)
	}
	if opts.RequestTimeout <= 0 {
		return nil, fmt.Errorf("ollama: request_timeout is %s: set model.request_timeout to a positive duration, e.g. \"180s\"", opts.RequestTimeout)
	}
	if opts.Temperature < 0 {
		return nil, fmt.Errorf("ollama: temperature is %g: set model.temperature to 0 or more", opts.Temperature)
	}
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		copied := *opts.HTTPClient
		hc = &copied
	}
	base2 := hc.Transport
	if base2 == nil {
		base2 = http.DefaultTransport
	}
	hc.Transport = observingTransport{base: egress.Transport(base2)}
	var auth httpsource.Auth
	if pw, ok := base.User.Password(); ok {
		auth = httpsource.Auth{Username: base.User.Username(), Password: pw}
	}
	return &Client{opts: opts, host: host.Redacted(), api: api.NewClient(base, hc), base: base, hc: hc, scrub: httpsource.NewScrubber(auth)}, nil
}

// Host is the normalized server URL, password redacted, that errors and
// doctor output name.
func (c *Client) Host() string { return c.host }

// Model is the configured model name.
func (c *Client) Model() string { return c.opts.Model }

// Chat runs one complete, non-retried, streamed round. It returns a Response
// only when the server sent its done:true chunk; anything else is a
// *model.Error.
func (c *Client) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	areq, err := c.buildRequest(req)
	if err != nil {
		return model.Response{}, c.fail(model.ErrBadRequest, err)
	}
	rctx, cancel := model.RoundContext(ctx, c.opts.RequestTimeout)
	defer cancel()
	rctx, ws := withWireState(rctx)

	var acc accumulator
	err = c.api.Chat(rctx, areq, acc.add)
	// The client returns nil for a stream its context cut: check first.
	if me := c.contextFailure(ctx, rctx); me != nil {
		return model.Response{}, me
	}
	if err != nil {
		return model.Response{}, c.mapError(err, ws)
	}
	status, _, readErr := ws.snapshot()
	if html, title := ws.htmlPage(); html {
		return model.Response{}, c.htmlFailure(status, title)
	}
	if status >= 400 {
		// An error status with an empty body: the client saw no line.
		return model.Response{}, c.statusFailure(status, "")
	}
	if readErr != nil {
		return model.Response{}, c.fail(model.ErrProtocol,
			fmt.Errorf("stream cut after %d chunks without a done chunk: %w", acc.chunks, readErr))
	}
	if !acc.done {
		return model.Response{}, c.fail(model.ErrProtocol,
			fmt.Errorf("stream ended without done (after %d chunks, no done:true chunk)", acc.chunks))
	}
	return c.response(req, &acc)
}

// buildRequest converts the port's request to the wire request: stream on,
// think explicit, num_ctx and temperature always set.
func (c *Client) buildRequest(req model.Request) (*api.ChatRequest, error) {
	msgs, err := messagesToAPI(req.Messages)
	if err != nil {
		return nil, err
	}
	tools, err := toolsToAPI(req.Tools)
	if err != nil {
		return nil, err
	}
	stream := true
	areq := &api.ChatRequest{
		Model:    c.opts.Model,
		Messages: msgs,
		Stream:   &stream,
		Tools:    tools,
		Think:    &api.ThinkValue{Value: c.opts.Think},
		Options: map[string]any{
			"num_ctx":     c.opts.NumCtx,
			"temperature": c.opts.Temperature,
		},
	}
	if req.MaxOutputTokens > 0 {
		// Ollama's bound on the answer's length.
		areq.Options["num_predict"] = req.MaxOutputTokens
	}
	if len(req.Format) > 0 {
		f, err := formatToAPI(req.Format)
		if err != nil {
			return nil, err
		}
		areq.Format = f
	}
	return areq, nil
}

// accumulator gathers a streamed answer; usage and done_reason come only
// on the done chunk.
type accumulator struct {
	content, thinking strings.Builder
	calls             []api.ToolCall
	chunks            int
	done              bool
	doneReason        string
	model             string
	promptTokens      int
	evalTokens        int
}

func (a *accumulator) add(r api.ChatResponse) error {
	a.chunks++
	a.content.WriteString(r.Message.Content)
	a.thinking.WriteString(r.Message.Thinking)
	a.calls = append(a.calls, r.Message.ToolCalls...)
	if r.Model != "" {
		a.model = r.Model
	}
	if r.Done {
		a.done = true
		a.doneReason = r.DoneReason
		a.promptTokens = r.PromptEvalCount
		a.evalTokens = r.EvalCount
	}
	return nil
}

func (c *Client) response(req model.Request, a *accumulator) (model.Response, error) {
	calls, err := toolCallsFromAPI(a.calls, req.Messages)
	if err != nil {
		return model.Response{}, c.fail(model.ErrProtocol, err)
	}
	return model.Response{
		Message: model.Message{
			Role:      model.RoleAssistant,
			Content:   a.content.String(),
			Thinking:  a.thinking.String(),
			ToolCalls: calls,
		},
		Usage:      model.Usage{PromptTokens: a.promptTokens, CompletionTokens: a.evalTokens},
		DoneReason: a.doneReason,
		Model:      a.model,
	}, nil
}
