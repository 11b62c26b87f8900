package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/internal/tools"
	"github.com/superbiz/superbiz/pkg/redact"
)

// Bounds of one HTTP exchange with a metrics server.
const (
	// maxResponse bounds the bytes read from one answer; a larger answer is
	// refused (narrow the query) instead of read into memory.
	maxResponse = 16 << 20
	// maxServerMessage bounds the server's error text kept for the audit.
	maxServerMessage = 512
)

// The only endpoints used: the tool is read-only by construction.
const (
	pathQuery      = "/api/v1/query"
	pathQueryRange = "/api/v1/query_range"
)

// APIError is a failed exchange with a metrics server, classified by the
// stable code the model sees; its text (the server's message, bounded and
// redacted) goes to the audit and to doctor only.
type APIError struct {
	Code string
	// Status is the HTTP status (0 when no answer arrived).
	Status int
	// Type is the API's errorType ("bad_data", "timeout", ...), if any.
	Type string
	Msg  string
}

// Error says what failed, for the audit and doctor.
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
	}
	if e.Type != "" {
		fmt.Fprintf(&b, " %s", e.Type)
	}
	if e.Msg != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Msg)
	}
	return strings.TrimSpace(b.String())
}

// get calls one API endpoint with params and returns the data of a success
// answer, or an *APIError.
func (s *source) get(ctx context.Context, path string, params url.Values) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, strings.NewReader(params.Encode()))
	if err != nil {
		return nil, &APIError{Code: tools.CodeInternal, Msg: redact.String(err.Error())}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	switch {
	case s.BearerTokenEnv != "":
		req.Header.Set("Authorization", "Bearer "+s.Secret.Reveal())
	case s.Username != "":
		req.SetBasicAuth(s.Username, s.Secret.Reveal())
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, s.transportError(ctx, err)
	}
	if len(body) > maxResponse {
		return nil, &APIError{Code: tools.CodeInvalidInput, Status: resp.StatusCode,
			Msg: fmt.Sprintf("the answer is larger than %d MiB: narrow the selector or aggregate (sum by, topk)", maxResponse>>20)}
	}
	var env apiResponse
	jsonErr := json.Unmarshal(body, &env)
	if resp.StatusCode == http.StatusOK && jsonErr == nil && env.Status == "success" {
		return env.Data, nil
	}
	e := &APIError{Status: resp.StatusCode, Type: textclip.Bytes(redact.StripControl(env.ErrorType), 40)}
	msg := env.Error
	if jsonErr != nil || msg == "" {
		msg = string(body) // not the API's JSON: a proxy's page, an auth refusal
	}
	e.Msg = textclip.Bytes(redact.Clean(strings.TrimSpace(msg)), maxServerMessage)
	e.Code = classify(resp.StatusCode, env.ErrorType)
	if e.Code == tools.CodeUnavailable && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		e.Msg = fmt.Sprintf("the server refused the credentials (check %s): %s", s.authHint(), e.Msg)
	}
	return nil, e
}

// classify maps an error answer to a stable code: the query's fault
// (bad_data, execution: 400, 422) is INVALID_INPUT, the server's time limit
// TIMEOUT, anything else (auth, 404, 5xx, a proxy) UNAVAILABLE.
func classify(status int, errorType string) string {
	switch {
	case errorType == "timeout" || errorType == "canceled" || status == http.StatusGatewayTimeout:
		return tools.CodeTimeout
	case errorType == "bad_data" || errorType == "execution" || status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return tools.CodeInvalidInput
	}
	return tools.CodeUnavailable
}

// transportError classifies a failure before an answer arrived.
func (s *source) transportError(ctx context.Context, err error) error {
	var ne net.Error
	if ctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
		return &APIError{Code: tools.CodeTimeout, Msg: fmt.Sprintf("no answer from %s within %s (timeout)", s.base, config.FormatDuration(s.Timeout))}
	}
	return &APIError{Code: tools.CodeUnavailable, Msg: textclip.Bytes(redact.String(err.Error()), maxServerMessage)}
}

// authHint names the configured credentials' source, never their value.
func (s *source) authHint() string {
	switch {
	case s.BearerTokenEnv != "":
		return "the token in $" + s.BearerTokenEnv
	case s.Username != "":
		return "username " + strconv.Quote(s.Username) + " and the password in $" + s.PasswordEnv
	}
	return "whether the server needs credentials: set bearer_token_env or username and password_env"
}

// queryRange runs a range query and returns its data.
func (s *source) queryRange(ctx context.Context, query string, start, end time.Time, step time.Duration) (json.RawMessage, error) {
	return s.get(ctx, pathQueryRange, url.Values{
		"query": {query},
		"start": {unixText(start)},
		"end":   {unixText(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	})
}

// unixText formats t as unix seconds with millisecond precision.
func unixText(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', -1, 64)
}
