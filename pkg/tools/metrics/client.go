package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/internal/jsonstream"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/tools"
)

// maxResponse bounds the bytes read from one answer; a larger answer is
// refused (narrow the query) instead of read into memory.
const maxResponse = 16 << 20

// The only endpoints used: the tool is read-only by construction.
const (
	pathQuery      = "/api/v1/query"
	pathQueryRange = "/api/v1/query_range"
)

// APIError is a failed exchange with a metrics server, classified by the
// stable code the model sees; its text (the server's message, bounded and
// scrubbed) goes to the audit and to doctor only.
type APIError struct {
	Code string
	// Status is the HTTP status (0 when no answer arrived).
	Status int
	// Type is the API's errorType ("bad_data", "timeout", ...), if any.
	Type string
	Msg  string
	// cause is the exchange's failure, so errors.Is sees a cancellation.
	cause error
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

// Unwrap gives the exchange's failure (a *httpsource.Error), if any.
func (e *APIError) Unwrap() error { return e.cause }

// get calls one API endpoint with params and returns the data of a success
// answer, or an *APIError. The answer is read whole (under the cap) and
// scrubbed of the source's credential: instant queries' answers are small.
func (s *source) get(ctx context.Context, path string, params url.Values) (json.RawMessage, error) {
	req, err := s.request(ctx, path, params)
	if err != nil {
		return nil, err
	}
	resp, err := s.http.Do(req) // every failure is an *httpsource.Error
	var he *httpsource.Error
	if errors.As(err, &he) && he.Kind != httpsource.Status {
		return nil, exchangeError(he)
	}
	var env apiResponse
	jsonErr := json.Unmarshal(resp.Body, &env)
	if he == nil && jsonErr == nil && env.Status == "success" {
		return env.Data, nil
	}
	return nil, s.answerError(resp, env, jsonErr, err)
}

// request is a POST of params to path on the source.
func (s *source) request(ctx context.Context, path string, params url.Values) (*http.Request, error) {
	req, err := s.http.NewRequest(ctx, http.MethodPost, s.url+path, strings.NewReader(params.Encode()))
	if err != nil {
		return nil, &APIError{Code: tools.CodeInternal, Msg: err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// answerError is the *APIError of an answer that is not a success: an
// error status, the API's error document, or not the API's JSON at all.
func (s *source) answerError(resp *httpsource.Response, env apiResponse, jsonErr, cause error) *APIError {
	e := &APIError{Status: resp.Status, Type: textclip.Bytes(termsafe.Strip(env.ErrorType), 40), cause: cause}
	if jsonErr != nil || env.Error == "" {
		e.Msg = s.http.Excerpt(resp.Body) // not the API's JSON: a proxy's page, an auth refusal
	} else {
		e.Msg = s.http.Scrub(termsafe.Strip(strings.TrimSpace(env.Error)))
	}
	e.Code = classify(resp.Status, env.ErrorType)
	if e.Code == tools.CodeUnavailable && (resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden) {
		e.Msg = fmt.Sprintf("the server refused the credentials (check %s): %s", s.authHint(), e.Msg)
	}
	return e
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

// exchangeError maps a failure without a usable answer to its code: our
// timeout or the run's deadline is TIMEOUT, a cancel by the caller (Ctrl-C)
// CANCELLED, an answer over the cap INVALID_INPUT (the query asked too
// much), no answer UNAVAILABLE.
func exchangeError(he *httpsource.Error) *APIError {
	e := &APIError{Code: tools.CodeUnavailable, Msg: he.Error(), cause: he}
	switch he.Kind {
	case httpsource.Timeout:
		e.Code = tools.CodeTimeout
	case httpsource.Cancelled:
		e.Code = tools.CodeCancelled
	case httpsource.TooLarge:
		e.Code = tools.CodeInvalidInput
		e.Msg = fmt.Sprintf("the answer is larger than %d MiB: narrow the selector or aggregate (sum by, topk)", maxResponse>>20)
	}
	return e
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

// queryRange runs a range query and decodes its answer as a stream: no
// series may hold more than allowedPoints(end-start, step) points, and
// every label is scrubbed of the source's credential as it is read.
func (s *source) queryRange(ctx context.Context, query string, start, end time.Time, step time.Duration) ([]rawSeries, error) {
	req, err := s.request(ctx, pathQueryRange, url.Values{
		"query": {query},
		"start": {unixText(start)},
		"end":   {unixText(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	})
	if err != nil {
		return nil, err
	}
	resp, rc, err := s.http.Stream(req)
	var he *httpsource.Error
	if errors.As(err, &he) && he.Kind != httpsource.Status {
		return nil, exchangeError(he)
	}
	if err != nil { // an error status: its document was read whole
		var env apiResponse
		jsonErr := json.Unmarshal(resp.Body, &env)
		return nil, s.answerError(resp, env, jsonErr, err)
	}
	defer rc.Close()
	d := matrixDecoder{Decoder: jsonstream.New(rc), maxPoints: allowedPoints(end.Sub(start), step), clean: s.http.Answer}
	rs, env, err := d.answer()
	switch {
	case errors.As(err, &he):
		return nil, exchangeError(he) // over the cap, timed out or cancelled mid-answer
	case err != nil:
		return nil, fmt.Errorf("the range query's answer: %s", s.http.Scrub(err.Error()))
	case env.Status != "success":
		return nil, s.answerError(resp, env, nil, nil)
	}
	return rs, nil
}

// unixText formats t as unix seconds with millisecond precision.
func unixText(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', -1, 64)
}
