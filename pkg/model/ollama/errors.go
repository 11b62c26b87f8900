package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/model"
)

// maxBodyText bounds any server-provided text copied into an error.
const maxBodyText = 200

func (c *Client) fail(kind model.ErrorKind, err error) *model.Error {
	return &model.Error{Kind: kind, Host: c.host, Model: c.opts.Model, Err: err}
}

// contextFailure reports a cancellation or deadline, checked before anything
// else because the Ollama client returns nil for a stream cut by its context.
// The caller's context wins over the adapter's own request timeout.
func (c *Client) contextFailure(ctx, rctx context.Context) *model.Error {
	if kind, err := model.ContextError(ctx, rctx, c.opts.RequestTimeout); kind != "" {
		return c.fail(kind, err)
	}
	return nil
}

// htmlFailure reports an HTML page where the API's JSON was expected: a
// proxy's error page (5xx: SERVER) or a web server that is not Ollama.
func (c *Client) htmlFailure(code int, title string) *model.Error {
	page := "an HTML page"
	title = c.scrub.Literal(title)
	if title != "" {
		page = fmt.Sprintf("an HTML page (%q)", title)
	}
	kind := model.ErrProtocol
	if code >= 500 {
		kind = model.ErrServer
	}
	e := c.fail(kind, fmt.Errorf("HTTP %d with %s instead of the Ollama API's JSON: a proxy or web server answered, not Ollama", code, page))
	e.Status = code
	return e
}

// statusFailure maps an HTTP error status and the server's message.
func (c *Client) statusFailure(code int, msg string) *model.Error {
	e := c.classifyStatus(code, msg)
	e.Status = code
	return e
}

// classifyStatus picks the kind of an HTTP error status.
func (c *Client) classifyStatus(code int, msg string) *model.Error {
	msg = textclip.Bytes(strings.TrimSpace(c.scrub.Literal(msg)), maxBodyText)
	var detail error
	if msg == "" {
		detail = fmt.Errorf("HTTP %d with an empty body", code)
	} else {
		detail = fmt.Errorf("HTTP %d: %s", code, msg)
	}
	switch {
	case code == http.StatusNotFound && strings.Contains(msg, "model"):
		return c.fail(model.ErrModelNotFound, detail)
	case code == http.StatusNotFound:
		// A 404 that does not name a model: the host is not an Ollama API.
		return c.fail(model.ErrBadRequest, fmt.Errorf("%w (is the host an Ollama server?)", detail))
	case code == http.StatusBadRequest && strings.Contains(msg, "does not support tools"):
		return c.fail(model.ErrToolsNotSupported, detail)
	case code >= 400 && code < 500:
		return c.fail(model.ErrBadRequest, detail)
	case code >= 500:
		return c.fail(model.ErrServer, detail)
	}
	return c.fail(model.ErrProtocol, fmt.Errorf("unexpected HTTP status: %w", detail))
}

// isUnreachable reports errors that mean no HTTP conversation happened:
// refused or failed dials, DNS failures, unreachable networks.
func isUnreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH)
}

// mapError turns what the Ollama client returned, plus what the wire showed,
// into a typed *model.Error. Context failures must have been checked first.
func (c *Client) mapError(err error, ws *wireState) *model.Error {
	status, errorLines, readErr := ws.snapshot()
	if html, title := ws.htmlPage(); html && status != 0 {
		return c.htmlFailure(status, title)
	}
	if bad := ws.badArguments(); bad != "" {
		return c.fail(model.ErrProtocol, errors.New(bad))
	}

	var se api.StatusError
	if errors.As(err, &se) {
		return c.statusFailure(se.StatusCode, se.ErrorMessage)
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		// A rejected credential is a request the user must fix, not a
		// transient server fault: BAD_REQUEST.
		e := c.fail(model.ErrBadRequest, fmt.Errorf("HTTP %d: unauthorized (the host requires signing in)", ae.StatusCode))
		e.Status = ae.StatusCode
		return e
	}
	if isUnreachable(err) {
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			err = opErr // drop the url.Error wrapper: the host is named already
		}
		return c.fail(model.ErrUnreachable, fmt.Errorf("cannot connect: %w", err))
	}
	if status == 0 {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return c.fail(model.ErrProtocol, fmt.Errorf("server closed the connection without a response: %w", err))
		}
		return c.fail(model.ErrProtocol, fmt.Errorf("request failed before any response: %w", err))
	}
	// An {"error":…} line after a 200: the server itself reported a failure
	// (runner crash, out of memory) once streaming had begun; that is the
	// same class as a 500, so SERVER, with the server's own words.
	if slices.Contains(errorLines, err.Error()) {
		return c.fail(model.ErrServer, fmt.Errorf("server failed mid-stream: %s", textclip.Bytes(strings.TrimSpace(err.Error()), maxBodyText)))
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return c.fail(model.ErrProtocol, fmt.Errorf("malformed chunk in stream: %w", err))
	}
	if readErr != nil {
		return c.fail(model.ErrProtocol, fmt.Errorf("stream cut: %w", readErr))
	}
	// The client returns a line it could not parse as the error text.
	return c.fail(model.ErrProtocol, fmt.Errorf("malformed line in stream: %q", textclip.Bytes(strings.TrimSpace(err.Error()), maxBodyText)))
}
