package alerts

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/httpsource"
)

// alertsPath is the one endpoint superbiz reads; the query asks for the
// firing alerts only: active, neither silenced nor inhibited.
const alertsPath = "/api/v2/alerts"

// Options configure a Client; secrets come from the environment, read by the caller.
type Options struct {
	// URL is Alertmanager's base URL (checked by internal/config: http(s), no credentials).
	URL string
	// BearerToken, or Username and Password, authenticate every request.
	BearerToken        string
	Username, Password string
	// Timeout bounds one request, answer included.
	Timeout time.Duration
	// HTTP is the client to use; nil is httpsource's (redirects on the same host only).
	HTTP *http.Client
}

// Client reads firing alerts from one Alertmanager.
type Client struct {
	base    *url.URL
	timeout time.Duration
	http    *httpsource.Client
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
	hc, err := httpsource.New(httpsource.Options{
		Auth:    httpsource.Auth{BearerToken: opts.BearerToken, Username: opts.Username, Password: opts.Password},
		Timeout: opts.Timeout, MaxBody: MaxBody, HTTP: opts.HTTP,
	})
	if err != nil {
		return nil, fmt.Errorf("alerts: %w", err)
	}
	return &Client{base: u, timeout: opts.Timeout, http: hc}, nil
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
// newest first, and a note for each alert left out (see Decode).
func (c *Client) Firing(ctx context.Context) (as []Alert, skipped []string, err error) {
	u := *c.base
	u.Path += alertsPath
	u.RawQuery = url.Values{"active": {"true"}, "silenced": {"false"}, "inhibited": {"false"}}.Encode()
	req, err := c.http.NewRequest(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("alerts: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, c.exchangeError(err)
	}
	as, skipped, err = Decode(resp.Body)
	switch {
	case errors.Is(err, ErrNotAlertmanager):
		return nil, nil, c.fail(KindNotAlertmanager, 0, c.http.Scrub(err.Error()))
	case err != nil:
		return nil, nil, c.fail(KindTooLarge, 0, c.http.Scrub(err.Error()))
	}
	return as, skipped, nil
}

// Find returns the firing alert ref names (see Pick).
func (c *Client) Find(ctx context.Context, ref string) (Alert, string, error) {
	if err := CheckRef(ref); err != nil {
		return Alert{}, "", err
	}
	// A fingerprint cannot be filtered on server-side: read all, then pick.
	as, _, err := c.Firing(ctx)
	if err != nil {
		return Alert{}, "", err
	}
	return Pick(as, ref)
}

func (c *Client) fail(k Kind, status int, detail string) *Error {
	return &Error{Kind: k, URL: c.URL(), Status: status, Detail: detail}
}

// exchangeError maps a failed exchange to its Kind; a cancel by the caller
// stays a wrapped context.Canceled, which cmd maps to the cancellation exit.
func (c *Client) exchangeError(err error) error {
	var he *httpsource.Error
	if !errors.As(err, &he) {
		return fmt.Errorf("alerts: %w", err)
	}
	switch he.Kind {
	case httpsource.Cancelled:
		return fmt.Errorf("alerts: %w", err)
	case httpsource.Timeout:
		return c.fail(KindTimeout, 0, c.timeout.String())
	case httpsource.TooLarge:
		return c.fail(KindTooLarge, 0, fmt.Sprintf("more than %d bytes", MaxBody))
	case httpsource.Status:
		if he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden {
			return c.fail(KindAuth, he.Status, he.Excerpt)
		}
		return c.fail(KindStatus, he.Status, he.Excerpt)
	}
	return c.fail(KindUnreachable, 0, he.Excerpt)
}
