package alerts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/redact"
)

// alertsPath is the one endpoint superbiz reads; the query asks for the
// firing alerts only: active, neither silenced nor inhibited.
const alertsPath = "/api/v2/alerts"

// maxDetail bounds the part of an error answer quoted in a message.
const maxDetail = 200

// Options configure a Client; secrets come from the environment, read by the caller.
type Options struct {
	// URL is Alertmanager's base URL (checked by internal/config: http(s), no credentials).
	URL string
	// BearerToken, or Username and Password, authenticate every request.
	BearerToken        string
	Username, Password string
	// Timeout bounds one request, answer included.
	Timeout time.Duration
	// HTTP is the client to use; nil is a plain one.
	HTTP *http.Client
}

// Client reads firing alerts from one Alertmanager.
type Client struct {
	base    *url.URL
	opts    Options
	http    *http.Client
	secrets []string // scrubbed from every message
}

// New checks opts and returns a client; it makes no request.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(opts.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, errors.New(`alerts.url must be an http(s) URL without credentials, e.g. "http://127.0.0.1:9093"`)
	}
	if opts.Timeout <= 0 {
		return nil, errors.New("alerts: the timeout must be positive")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{base: u, opts: opts, http: opts.HTTP}
	if c.http == nil {
		c.http = &http.Client{}
	}
	for _, s := range []string{opts.BearerToken, opts.Password} {
		if s != "" {
			c.secrets = append(c.secrets, s)
		}
	}
	return c, nil
}

// URL is the base URL as messages show it (it holds no credentials).
func (c *Client) URL() string { return c.base.String() }

// Kind classifies a failure to read the alerts, for the message and hint.
type Kind string

// The ways reading the alerts can fail.
const (
	KindUnreachable     Kind = "UNREACHABLE"
	KindTimeout         Kind = "TIMEOUT"
	KindAuth            Kind = "AUTH"
	KindStatus          Kind = "HTTP_STATUS"
	KindNotAlertmanager Kind = "NOT_ALERTMANAGER"
	KindTooLarge        Kind = "TOO_LARGE"
)

// Error is a failure to read the alerts: what kind, the URL, the HTTP
// status when there was one, and a bounded, redacted detail.
type Error struct {
	Kind   Kind
	URL    string
	Status int
	Detail string
}

func (e *Error) Error() string {
	switch e.Kind {
	case KindUnreachable:
		return fmt.Sprintf("Alertmanager at %s is not reachable: %s", e.URL, e.Detail)
	case KindTimeout:
		return fmt.Sprintf("Alertmanager at %s did not answer within alerts.timeout (%s)", e.URL, e.Detail)
	case KindAuth:
		return fmt.Sprintf("Alertmanager at %s refused the credentials (HTTP %d): %s", e.URL, e.Status, e.Detail)
	case KindStatus:
		return fmt.Sprintf("Alertmanager at %s answered HTTP %d: %s", e.URL, e.Status, e.Detail)
	case KindTooLarge:
		return fmt.Sprintf("Alertmanager at %s sent an answer too large to read: %s", e.URL, e.Detail)
	}
	return fmt.Sprintf("the server at %s is not an Alertmanager API v2: %s", e.URL, e.Detail)
}

// Hint says what to check for this kind of failure.
func (e *Error) Hint() string {
	switch e.Kind {
	case KindUnreachable:
		return "hint: start Alertmanager or fix [alerts] url in the configuration file"
	case KindTimeout:
		return "hint: check that Alertmanager is healthy (GET /-/ready), or raise alerts.timeout"
	case KindAuth:
		return "hint: check the variable named by alerts.bearer_token_env, or alerts.username and the variable named by alerts.password_env, and the proxy in front of Alertmanager"
	case KindTooLarge:
		return fmt.Sprintf("hint: superbiz reads at most %d alerts and %d bytes; silence or resolve the noise, or point alerts.url at a narrower Alertmanager", MaxAlerts, MaxBody)
	}
	return "hint: alerts.url must be Alertmanager's base URL (the one serving /api/v2/alerts, usually port 9093), not Prometheus or a proxy's page"
}

// Firing returns the firing alerts (active, not silenced, not inhibited),
// newest first.
func (c *Client) Firing(ctx context.Context) ([]Alert, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	u := *c.base
	u.Path += alertsPath
	u.RawQuery = url.Values{"active": {"true"}, "silenced": {"false"}, "inhibited": {"false"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("alerts: build the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	switch {
	case c.opts.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.opts.BearerToken)
	case c.opts.Username != "":
		req.SetBasicAuth(c.opts.Username, c.opts.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, c.fail(KindAuth, resp.StatusCode, c.detail(body))
	case resp.StatusCode != http.StatusOK:
		return nil, c.fail(KindStatus, resp.StatusCode, c.detail(body))
	case len(body) > MaxBody:
		return nil, c.fail(KindTooLarge, 0, fmt.Sprintf("more than %d bytes", MaxBody))
	}
	as, err := Decode(body)
	switch {
	case errors.Is(err, ErrNotAlertmanager):
		return nil, c.fail(KindNotAlertmanager, 0, c.scrub(err.Error()))
	case err != nil:
		return nil, c.fail(KindTooLarge, 0, c.scrub(err.Error()))
	}
	return as, nil
}

// Find returns the firing alert ref names (see Pick).
func (c *Client) Find(ctx context.Context, ref string) (Alert, string, error) {
	if err := CheckRef(ref); err != nil {
		return Alert{}, "", err
	}
	// A fingerprint cannot be filtered on server-side: read all, then pick.
	as, err := c.Firing(ctx)
	if err != nil {
		return Alert{}, "", err
	}
	return Pick(as, ref)
}

func (c *Client) fail(k Kind, status int, detail string) *Error {
	return &Error{Kind: k, URL: c.URL(), Status: status, Detail: detail}
}

// transportError classifies a failure below HTTP: a timeout, else unreachable.
func (c *Client) transportError(ctx context.Context, err error) error {
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return c.fail(KindTimeout, 0, c.opts.Timeout.String())
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("alerts: %w", err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is in the message already
	}
	return c.fail(KindUnreachable, 0, c.scrub(err.Error()))
}

// detail is the start of an error answer: one line, redacted, bounded.
func (c *Client) detail(body []byte) string {
	s := strings.TrimSpace(redact.StripControlLine(string(body[:min(len(body), 4*maxDetail)])))
	if s == "" {
		return "(empty body)"
	}
	return c.scrub(s)
}

// scrub redacts s and removes the configured secrets from it, then clips it.
func (c *Client) scrub(s string) string {
	s = redact.String(s)
	for _, secret := range c.secrets {
		s = strings.ReplaceAll(s, secret, redact.Marker)
	}
	return textclip.Bytes(s, maxDetail)
}
