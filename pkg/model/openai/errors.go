package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
)

// maxBodyText bounds any server-provided text copied into an error.
const maxBodyText = 200

func (c *Client) fail(kind model.ErrorKind, err error) *model.Error {
	return &model.Error{Kind: kind, Host: c.host, Model: c.opts.Model, Err: err}
}

// post sends body to base+path (nil body: GET) and hands the 2xx answer to
// read, streamed when the server answers text/event-stream. A 429 is
// retried after its Retry-After (1s when absent) while that fits before
// rctx's deadline, at most maxRetries times. Every failure is a *model.Error.
func (c *Client) post(ctx, rctx context.Context, path string, body egress.JSON, read func(stream bool, r io.Reader) error) error {
	for attempt := 0; ; attempt++ {
		method, rd := http.MethodPost, io.Reader(nil)
		if body.IsZero() {
			method = http.MethodGet
		} else {
			rd = bytes.NewReader(body.Bytes())
		}
		req, err := c.hs.NewRequest(rctx, method, c.base+path, rd)
		if err != nil {
			return c.fail(model.ErrBadRequest, err)
		}
		if !body.IsZero() {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, rc, err := c.hs.Stream(req)
		if err != nil {
			if resp != nil && resp.Status == http.StatusTooManyRequests && attempt < maxRetries {
				if wait, ok := retryWait(rctx, resp.Header); ok {
					if sleep(rctx, wait) {
						continue
					}
				}
			}
			return c.exchangeFailure(ctx, rctx, resp, err, attempt)
		}
		err = c.readAnswer(resp, rc, read)
		rc.Close()
		if err != nil {
			return c.readFailure(ctx, rctx, err)
		}
		return nil
	}
}

// readAnswer refuses an HTML page and hands the body to read.
func (c *Client) readAnswer(resp *httpsource.Response, rc io.Reader, read func(bool, io.Reader) error) error {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	// The first bytes tell an HTML page; one read, so a stream is not held.
	head := make([]byte, 512)
	n, err := rc.Read(head)
	for n == 0 && err == nil {
		n, err = rc.Read(head)
	}
	head = head[:n]
	if mt == "text/html" || bytes.HasPrefix(bytes.TrimSpace(head), []byte("<")) {
		return c.htmlFailure(resp.Status, head)
	}
	if err != nil && err != io.EOF {
		return err
	}
	return read(mt == "text/event-stream", io.MultiReader(bytes.NewReader(head), rc))
}

// retriesText says how many retries a rate-limited round had: none when the
// server's Retry-After did not fit in the round's time.
func retriesText(n int) string {
	switch n {
	case 0:
		return "not retried: the wait does not fit within model.request_timeout"
	case 1:
		return "still after 1 retry within model.request_timeout"
	}
	return fmt.Sprintf("still after %d retries within model.request_timeout", n)
}

// retryWait is how long a 429's Retry-After (seconds or an HTTP date) asks
// to wait, 1s when absent; false when that would pass rctx's deadline. The
// seconds are compared before they become a Duration, so a huge value
// (past 9.2e9 s) cannot overflow into an immediate retry.
func retryWait(rctx context.Context, h http.Header) (time.Duration, bool) {
	wait := time.Second
	d, bounded := rctx.Deadline()
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
			if bounded && float64(s) > time.Until(d).Seconds() {
				return 0, false
			}
			wait = time.Duration(min(s, int64(maxRetryWait/time.Second))) * time.Second
		} else if err == nil || errors.Is(err, strconv.ErrRange) {
			return 0, false // negative or past int64: not a wait anyone can honour
		} else if t, err := http.ParseTime(v); err == nil {
			wait = max(time.Until(t), 0)
		}
	}
	if bounded && time.Now().Add(wait).After(d) {
		return 0, false
	}
	return wait, true
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// contextFailure reports a cancellation or deadline; the caller's context
// wins over the adapter's own request timeout.
func (c *Client) contextFailure(ctx, rctx context.Context) *model.Error {
	if kind, err := model.ContextError(ctx, rctx, c.opts.RequestTimeout); kind != "" {
		return c.fail(kind, err)
	}
	return nil
}

// exchangeFailure maps a failed exchange (no 2xx answer) to a *model.Error.
func (c *Client) exchangeFailure(ctx, rctx context.Context, resp *httpsource.Response, err error, retries int) *model.Error {
	if me := c.contextFailure(ctx, rctx); me != nil {
		return me
	}
	var he *httpsource.Error
	if !errors.As(err, &he) {
		return c.fail(model.ErrProtocol, err)
	}
	switch he.Kind {
	case httpsource.Cancelled:
		return c.fail(model.ErrCancelled, err)
	case httpsource.Timeout:
		return c.fail(model.ErrTimeout, err)
	case httpsource.Unreachable:
		return c.fail(model.ErrUnreachable, fmt.Errorf("cannot connect: %s", he.Excerpt))
	case httpsource.Redirected:
		// The server is there: the address is the thing to fix.
		return c.fail(model.ErrBadRequest, fmt.Errorf("the server answered with a %s, so the API key stays on model.url's host: set model.url to the address it redirects to", he.Excerpt))
	case httpsource.TooLarge:
		return c.fail(model.ErrProtocol, err)
	}
	if resp == nil {
		return c.statusFailure(ctx, he.Status, nil, nil, retries)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/html" || bytes.HasPrefix(bytes.TrimSpace(resp.Body), []byte("<")) {
		return c.htmlFailure(resp.Status, resp.Body)
	}
	return c.statusFailure(ctx, resp.Status, resp.Header, resp.Body, retries)
}

// readFailure maps a failure while reading a 2xx answer.
func (c *Client) readFailure(ctx, rctx context.Context, err error) *model.Error {
	if me := c.contextFailure(ctx, rctx); me != nil {
		return me
	}
	var me *model.Error
	if errors.As(err, &me) {
		return me
	}
	var sf *streamFault
	if errors.As(err, &sf) {
		return c.fail(sf.kind, errors.New(c.hs.Scrub(sf.err.Error())))
	}
	var he *httpsource.Error
	if errors.As(err, &he) && he.Kind == httpsource.Timeout {
		return c.fail(model.ErrTimeout, err)
	}
	// The connection broke or the body was refused mid-answer.
	return c.fail(model.ErrProtocol, fmt.Errorf("stream cut before the answer ended: %w", err))
}

// apiError is the error document of the OpenAI wire ({"error":{...}}) and
// of servers that answer it flat ({"object":"error","message":...}, vLLM).
type apiError struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
	Type    string          `json:"type"`
}

type apiErrorBody struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// parseError returns the message and the code (or type) of an error document.
func parseError(body []byte) (msg, code string) {
	var e apiError
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	inner := bytes.TrimSpace(e.Error)
	switch {
	case len(inner) > 0 && inner[0] == '{':
		var b apiErrorBody
		if json.Unmarshal(inner, &b) == nil {
			return b.Message, codeText(b.Code, b.Type)
		}
	case len(inner) > 0 && inner[0] == '"':
		_ = json.Unmarshal(inner, &msg)
		return msg, codeText(e.Code, e.Type)
	}
	return e.Message, codeText(e.Code, e.Type)
}

// codeText is an error code as text (OpenAI sends a string, vLLM a number),
// or the error type when there is no textual code.
func codeText(code json.RawMessage, typ string) string {
	var s string
	if json.Unmarshal(code, &s) == nil && s != "" {
		return s
	}
	return typ
}

// errorText is the message of an error object met inside an answer.
func errorText(raw json.RawMessage) string {
	msg, code := parseError([]byte(`{"error":` + string(raw) + `}`))
	if msg == "" {
		msg = string(raw)
	}
	if code != "" {
		msg += " (" + code + ")"
	}
	return textclip.Bytes(strings.TrimSpace(msg), maxBodyText)
}

// htmlFailure reports an HTML page where the API's JSON was expected: a
// proxy's error page (5xx: SERVER) or a web server that is not the API.
func (c *Client) htmlFailure(code int, body []byte) *model.Error {
	page := "an HTML page"
	if title := httpsource.HTMLTitle(body); title != "" {
		page = fmt.Sprintf("an HTML page (%q)", title)
	}
	kind := model.ErrProtocol
	if code >= 500 {
		kind = model.ErrServer
	}
	e := c.fail(kind, fmt.Errorf("HTTP %d with %s instead of the OpenAI-compatible API's JSON: a proxy or web server answered, not the model server", code, page))
	e.Status = code
	return e
}

// statusFailure classifies an HTTP error answer by its status and the
// error document's code, with the hint a person needs; retries is how many
// times a 429 was retried before it.
func (c *Client) statusFailure(ctx context.Context, code int, h http.Header, body []byte, retries int) *model.Error {
	msg, ecode := parseError(body)
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	msg = textclip.Bytes(c.hs.Scrub(msg), maxBodyText)
	detail := fmt.Sprintf("HTTP %d: %s", code, msg)
	if msg == "" {
		detail = fmt.Sprintf("HTTP %d with an empty body", code)
	}
	lower := strings.ToLower(msg + " " + ecode)
	var e *model.Error
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		if c.opts.APIKey == "" {
			e = c.fail(model.ErrBadRequest, fmt.Errorf("%s: the server wants an API key and $%s is not set (model.api_key_env names the variable)", detail, c.opts.APIKeyEnv))
		} else {
			e = c.fail(model.ErrBadRequest, fmt.Errorf("%s: the server refused the API key from $%s (model.api_key_env)", detail, c.opts.APIKeyEnv))
		}
	case ecode == "model_not_found" || (code == http.StatusNotFound && strings.Contains(lower, "model")):
		e = c.fail(model.ErrModelNotFound, fmt.Errorf("%s; %s", detail, c.listedModels(ctx)))
	case code == http.StatusNotFound:
		e = c.fail(model.ErrBadRequest, fmt.Errorf("%s (is model.url the API's base URL, usually ending in /v1?)", detail))
	case ecode == "context_length_exceeded" || strings.Contains(lower, "context length") || strings.Contains(lower, "context_length") || strings.Contains(lower, "context window"):
		e = c.fail(model.ErrBadRequest, fmt.Errorf("%s: the conversation is longer than the model's context window; lower limits.observation (the largest part of each tool result) or budget.max_tool_calls, or serve the model with a longer context (vLLM --max-model-len, llama.cpp -c)", detail))
	case code == http.StatusBadRequest && toolsUnsupported(lower):
		e = c.fail(model.ErrToolsNotSupported, fmt.Errorf("%s%s", detail, toolHint(lower)))
	case code == http.StatusTooManyRequests:
		wait := ""
		if h != nil && h.Get("Retry-After") != "" {
			wait = fmt.Sprintf(" (Retry-After %s)", textclip.Bytes(h.Get("Retry-After"), 40))
		}
		e = c.fail(model.ErrServer, fmt.Errorf("%s: rate limited%s, %s", detail, wait, retriesText(retries)))
	case code >= 400 && code < 500:
		e = c.fail(model.ErrBadRequest, errors.New(detail))
	case code >= 500:
		e = c.fail(model.ErrServer, errors.New(detail))
	default:
		e = c.fail(model.ErrProtocol, fmt.Errorf("unexpected HTTP status: %s", detail))
	}
	e.Status = code
	return e
}

// toolsUnsupported reports a 400 that says the server will not call tools.
func toolsUnsupported(lower string) bool {
	return strings.Contains(lower, "tool choice") || strings.Contains(lower, "tool_choice") ||
		strings.Contains(lower, "does not support tools") || strings.Contains(lower, "tools are not supported") ||
		strings.Contains(lower, "--jinja")
}

// toolHint is how to switch tool calling on for the server the message
// comes from, or "".
func toolHint(lower string) string {
	switch {
	case strings.Contains(lower, "enable-auto-tool-choice") || strings.Contains(lower, "tool-call-parser"):
		return " (vLLM: start it with --enable-auto-tool-choice --tool-call-parser <parser of the model, e.g. hermes>)"
	case strings.Contains(lower, "jinja"):
		return " (llama.cpp: start llama-server with --jinja)"
	}
	return ""
}

// listedModels names what /models lists, for a model-not-found message.
func (c *Client) listedModels(ctx context.Context) string {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	ids, err := c.Models(lctx)
	switch {
	case err != nil:
		return "its /models could not be read either"
	case len(ids) == 0:
		return "its /models lists no model"
	}
	return "its /models lists: " + textclip.Bytes(strings.Join(ids, ", "), maxBodyText)
}
