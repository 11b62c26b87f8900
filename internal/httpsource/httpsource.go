// Package httpsource is the one way superbiz talks to an HTTP server it reads
// from (Alertmanager, Prometheus-compatible metrics servers, and next the
// model providers): the configured credentials on every request, the
// caller's context plus a per-exchange timeout, a body read up to a cap,
// one classification of failures (cancelled, timed out, unreachable, HTTP
// status, too large) and one scrub of the configured secret, in all its
// encoded forms, from everything the server sends back: the whole answer
// before any caller reads it, and error excerpts.
package httpsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// MaxExcerpt bounds the part of an error answer an *Error quotes, in bytes.
const MaxExcerpt = 256

// Auth is the credentials sent with every request: a bearer token, or a
// username and password (basic authentication); the zero value sends none.
type Auth struct {
	BearerToken        string
	Username, Password string
}

// Options configure a Client.
type Options struct {
	Auth Auth
	// Timeout bounds one exchange, the body read included; it must be positive.
	Timeout time.Duration
	// MaxBody is the most bytes read from an answer; a larger one is a TooLarge error.
	MaxBody int64
	// HTTP is the client to send with; nil is one that follows redirects on the configured host only.
	HTTP *http.Client
}

// Client sends requests to one server with its credentials, timeout and body cap.
type Client struct {
	Scrubber
	opts Options
	http *http.Client
}

// Scrubber removes a configured credential, in every form a server may echo
// it in (egress.Credential), from what the server sent back. A Client has
// one; the Ollama adapter, whose HTTP client is the Ollama library's, makes
// its own for the password of model.host.
type Scrubber struct {
	egress.Credential
}

// NewScrubber lists the forms of a's credential.
func NewScrubber(a Auth) Scrubber {
	return Scrubber{egress.NewCredential(a.Username, a.Password, a.BearerToken)}
}

// New checks opts and returns a client; it makes no request.
func New(opts Options) (*Client, error) {
	if opts.Timeout <= 0 || opts.MaxBody <= 0 {
		return nil, errors.New("httpsource: the timeout and the body cap must be positive")
	}
	if opts.Auth.BearerToken != "" && opts.Auth.Username != "" {
		return nil, errors.New("httpsource: give a bearer token or a username and password, not both")
	}
	c := &Client{Scrubber: NewScrubber(opts.Auth), opts: opts, http: opts.HTTP}
	if c.http == nil {
		c.http = &http.Client{CheckRedirect: sameHostRedirect}
	}
	return c, nil
}

// sameHostRedirect keeps credentials on the configured host: a redirect
// elsewhere is refused rather than followed.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("more than 3 redirects")
	}
	if req.URL.Host != via[0].URL.Host {
		return &redirectError{host: req.URL.Host}
	}
	return nil
}

// redirectError is a redirect to another host, refused so the credential
// stays on the configured one.
type redirectError struct{ host string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("redirect to another host (%s) refused", e.host)
}

// Kind classifies a failed exchange.
type Kind string

// The ways an exchange can fail.
const (
	// Cancelled: the caller's context was cancelled (Ctrl-C, the run ended).
	Cancelled Kind = "CANCELLED"
	// Timeout: no complete answer within the timeout or the caller's deadline.
	Timeout Kind = "TIMEOUT"
	// Unreachable: no answer at all (refused, DNS, TLS, a reset).
	Unreachable Kind = "UNREACHABLE"
	// Redirected: the server redirected to another host, which is not
	// followed (the credential stays on the configured host); it answered,
	// so it is not unreachable.
	Redirected Kind = "REDIRECTED"
	// Status: the server answered with a status outside 2xx.
	Status Kind = "HTTP_STATUS"
	// TooLarge: the answer is longer than the body cap.
	TooLarge Kind = "TOO_LARGE"
)

// Error is a failed exchange: its kind, the URL (no query), the HTTP status
// when an answer came, and a scrubbed, one-line, bounded excerpt of the
// answer or the transport error.
type Error struct {
	Kind    Kind
	URL     string
	Status  int
	Excerpt string
	err     error
}

// Error says what failed, in words a person can act on.
func (e *Error) Error() string {
	switch e.Kind {
	case Cancelled:
		return fmt.Sprintf("request to %s cancelled", e.URL)
	case Timeout:
		return fmt.Sprintf("no answer from %s within %s (timeout)", e.URL, e.Excerpt)
	case Unreachable:
		return fmt.Sprintf("%s is not reachable: %s", e.URL, e.Excerpt)
	case Redirected:
		return fmt.Sprintf("%s answered with a %s, so that the credential stays on the configured host", e.URL, e.Excerpt)
	case TooLarge:
		return fmt.Sprintf("the answer of %s is larger than %s", e.URL, e.Excerpt)
	}
	return fmt.Sprintf("%s answered HTTP %d: %s", e.URL, e.Status, e.Excerpt)
}

// Unwrap gives the cause, so errors.Is(err, context.Canceled) holds for a cancel.
func (e *Error) Unwrap() error { return e.err }

// Response is an answer read whole: its status, headers and body (at most MaxBody bytes).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// NewRequest builds a request to rawURL with the client's credentials; body may be nil.
func (c *Client) NewRequest(ctx context.Context, method, rawURL string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, fmt.Errorf("httpsource: build the request: %s", c.Scrub(err.Error()))
	}
	switch a := c.opts.Auth; {
	case a.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+a.BearerToken)
	case a.Username != "":
		req.SetBasicAuth(a.Username, a.Password)
	}
	return req, nil
}

// Do sends req under the client's timeout and reads the answer up to the
// cap. Every failure is an *Error; a non-2xx answer returns the Response
// too, so a caller can read an API's error document from it.
func (c *Client) Do(req *http.Request) (*Response, error) {
	parent := req.Context()
	ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
	defer cancel()
	resp, err := c.http.Do(req.WithContext(ctx))
	if err != nil {
		return nil, c.transportError(parent, ctx, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	if err != nil {
		return nil, c.transportError(parent, ctx, req.URL, err)
	}
	if int64(len(body)) <= c.opts.MaxBody {
		body = c.Body(body)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return r, &Error{Kind: Status, URL: shown(req.URL), Status: resp.StatusCode, Excerpt: c.Excerpt(body)}
	case int64(len(body)) > c.opts.MaxBody:
		return nil, &Error{Kind: TooLarge, URL: shown(req.URL), Status: resp.StatusCode, Excerpt: sizeText(c.opts.MaxBody)}
	}
	return r, nil
}

// transportError classifies a failure before a whole answer arrived: the
// caller's cancel, a deadline (ours or the caller's), else unreachable.
func (c *Client) transportError(parent, ctx context.Context, u *url.URL, err error) *Error {
	e := &Error{URL: shown(u), err: err}
	var ne net.Error
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		e.Kind, e.err = Cancelled, parent.Err()
	case ctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind, e.Excerpt = Timeout, tools.FormatDuration(c.opts.Timeout)
		if d, ok := parent.Deadline(); ok && parent.Err() != nil {
			e.Excerpt = "the caller's deadline " + d.Format(time.RFC3339)
		}
	default:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already
		}
		e.Kind, e.Excerpt = Unreachable, c.Scrub(err.Error())
		var re *redirectError
		if errors.As(err, &re) {
			e.Kind, e.Excerpt = Redirected, c.Scrub(re.Error())
		}
	}
	return e
}

// Excerpt is the start of an answer as errors quote it: one line, scrubbed, bounded.
func (c *Client) Excerpt(body []byte) string {
	s := strings.TrimSpace(termsafe.Line(string(body[:min(len(body), 4*MaxExcerpt)])))
	if s == "" {
		return "(empty body)"
	}
	return c.Scrub(s)
}

// Scrub removes secrets from text that came back from the server: every
// literal form of the configured credential, then anything redact finds; the
// result is cut to MaxExcerpt bytes.
func (c Scrubber) Scrub(s string) string {
	return textclip.Bytes(egress.Mask(c.Literal(s)).String(), MaxExcerpt)
}

// shown is a request URL as messages show it: no credentials, no query.
func shown(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment = nil, "", false, ""
	return v.String()
}

// sizeText prints a byte count the way the caps are written ("16 MiB", "4096 bytes").
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Stream sends req under the client's timeout and hands back a 2xx answer's
// body unread, for a caller that reads it as it arrives (server-sent
// events). The body yields at most MaxBody bytes, then a TooLarge *Error;
// its read failures are classified like Do's; closing it ends the exchange.
// A non-2xx answer is read whole (capped) and returned as Do returns it.
func (c *Client) Stream(req *http.Request) (*Response, io.ReadCloser, error) {
	parent := req.Context()
	ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
	resp, err := c.http.Do(req.WithContext(ctx))
	if err != nil {
		defer cancel()
		return nil, nil, c.transportError(parent, ctx, req.URL, err)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel()
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody))
		if err != nil {
			return nil, nil, c.transportError(parent, ctx, req.URL, err)
		}
		r.Body = body
		return r, nil, &Error{Kind: Status, URL: shown(req.URL), Status: resp.StatusCode, Excerpt: c.Excerpt(body)}
	}
	return r, &streamBody{c: c, parent: parent, ctx: ctx, cancel: cancel, u: req.URL, rc: resp.Body, left: c.opts.MaxBody}, nil
}

// streamBody is a 2xx answer's body read as it arrives, under the cap.
type streamBody struct {
	c           *Client
	parent, ctx context.Context
	cancel      context.CancelFunc
	u           *url.URL
	rc          io.ReadCloser
	left        int64
}

func (b *streamBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more than the cap tells a full answer from a larger one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, &Error{Kind: TooLarge, URL: shown(b.u), Status: http.StatusOK, Excerpt: sizeText(b.c.opts.MaxBody)}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if err != nil && err != io.EOF {
		return n, b.c.transportError(b.parent, b.ctx, b.u, err)
	}
	return n, err
}

// Close ends the exchange.
func (b *streamBody) Close() error {
	defer b.cancel()
	return b.rc.Close()
}

// HTMLTitle is the text of the <title> element in page (an error page a
// proxy sent where an API's JSON was expected), spaces folded and bounded to
// 80 bytes, or "" when there is none.
func HTMLTitle(page []byte) string {
	lower := bytes.ToLower(page)
	i := bytes.Index(lower, []byte("<title>"))
	if i < 0 {
		return ""
	}
	rest := page[i+len("<title>"):]
	if j := bytes.Index(bytes.ToLower(rest), []byte("</title>")); j >= 0 {
		rest = rest[:j]
	}
	return textclip.Bytes(strings.Join(strings.Fields(string(rest)), " "), 80)
}
