package victorialogs

import (
	"bufio"
	"bytes"
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
)

// DefaultMaxBytes bounds one answer's body when Options give none.
const DefaultMaxBytes = 4 << 20

// Options are a source's connection: its URL (a single node or a
// cluster's select front end), tenant and credentials, and bounds.
type Options struct {
	URL string
	// Tenant is "AccountID:ProjectID" ("" for the default tenant 0:0).
	Tenant string
	// Username and Password (basic auth), or Bearer (a token); at most one.
	Username, Password, Bearer string
	// Timeout bounds one request; it is also sent as the query's timeout.
	Timeout time.Duration
	// MaxBytes bounds one answer's body (0: DefaultMaxBytes).
	MaxBytes int64
}

// Client reads one VictoriaLogs source through httpsource (credentials,
// timeout, body cap, a credential echoed back scrubbed) over a ReadOnly
// transport.
type Client struct {
	opts    Options
	base    *url.URL
	account string
	project string
	src     *httpsource.Client
}

// New checks the options and builds the client; it makes no request.
func New(o Options) (*Client, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("victorialogs: url %q is not an http(s) URL with a host", o.URL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("victorialogs: url %q carries credentials, a query or a fragment: give only scheme, host and path", u.Redacted())
	}
	c := &Client{opts: o, base: u}
	if o.Tenant != "" {
		a, p, ok := strings.Cut(o.Tenant, ":")
		_, errA := strconv.ParseUint(a, 10, 32)
		_, errP := strconv.ParseUint(p, 10, 32)
		if !ok || errA != nil || errP != nil {
			return nil, fmt.Errorf("victorialogs: tenant %q is not AccountID:ProjectID (two numbers)", o.Tenant)
		}
		c.account, c.project = a, p
	}
	if c.opts.MaxBytes <= 0 {
		c.opts.MaxBytes = DefaultMaxBytes
	}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = 30 * time.Second
	}
	c.src, err = httpsource.New(httpsource.Options{
		Auth:    httpsource.Auth{BearerToken: o.Bearer, Username: o.Username, Password: o.Password},
		Timeout: c.opts.Timeout, MaxBody: c.opts.MaxBytes,
		HTTP: &http.Client{Transport: ReadOnly{Base: u.Path},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	})
	if err != nil {
		return nil, fmt.Errorf("victorialogs: %w", err)
	}
	return c, nil
}

// Error is an answer VictoriaLogs could not give for a window: the
// exchange's failure (httpsource: its kind, the URL, the status and a
// scrubbed excerpt of what the server said, which names a storage node
// that is down) and the window asked.
type Error struct {
	Window string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("victorialogs, window %s: %v", e.Window, e.Err)
}

// Unwrap gives the cause.
func (e *Error) Unwrap() error { return e.Err }

// Unavailable reports whether the source (or one of its storage nodes)
// could not answer: a 502, 503 or 504, no answer, or none in time.
func (e *Error) Unavailable() bool {
	var he *httpsource.Error
	if !errors.As(e.Err, &he) {
		return false
	}
	switch he.Kind {
	case httpsource.Unreachable, httpsource.Timeout:
		return true
	case httpsource.Status:
		return he.Status == http.StatusBadGateway || he.Status == http.StatusServiceUnavailable || he.Status == http.StatusGatewayTimeout
	}
	return false
}

// TooLarge reports whether the answer was longer than the byte cap.
func (e *Error) TooLarge() bool {
	var he *httpsource.Error
	return errors.As(e.Err, &he) && he.Kind == httpsource.TooLarge
}

// Row is one JSON line of an answer: field name to value.
type Row map[string]string

// Query runs a LogsQL query over [start, end) and returns its rows;
// limit > 0 keeps the newest limit entries (the request's limit argument).
// An answer over MaxBytes is an error, never a silent cut.
func (c *Client) Query(ctx context.Context, query string, limit int, f Filter) ([]Row, error) {
	form := url.Values{"query": {query}, "timeout": {c.opts.Timeout.String()}}
	if limit > 0 {
		form.Set("limit", strconv.Itoa(limit))
	}
	window := f.Start.UTC().Format(time.RFC3339) + ".." + f.End.UTC().Format(time.RFC3339)
	fail := func(err error) error { return &Error{Window: window, Err: err} }
	req, err := c.src.NewRequest(ctx, http.MethodPost, c.base.JoinPath(SelectPrefix, "logsql/query").String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fail(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.account != "" {
		req.Header.Set("AccountID", c.account)
		req.Header.Set("ProjectID", c.project)
	}
	resp, err := c.src.Do(req)
	if err != nil {
		return nil, fail(err)
	}
	body := resp.Body
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), int(c.opts.MaxBytes)+1)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var raw map[string]any
		if err := json.Unmarshal(line, &raw); err != nil {
			return nil, fail(fmt.Errorf("an answer line is not a JSON object: %w", err))
		}
		row := make(Row, len(raw))
		for k, v := range raw {
			if s, ok := v.(string); ok {
				row[k] = s
			} else {
				b, _ := json.Marshal(v)
				row[k] = string(b)
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fail(fmt.Errorf("read the answer: %w", err))
	}
	return rows, nil
}

// Count runs a query ending in `| stats count() NAME` and returns the
// count of its one row.
func (c *Client) Count(ctx context.Context, query, name string, f Filter) (int64, error) {
	rows, err := c.Query(ctx, query, 0, f)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, fmt.Errorf("victorialogs %s: a count gave %d rows, want 1", c.base.Redacted(), len(rows))
	}
	n, err := strconv.ParseInt(rows[0][name], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("victorialogs %s: the count %q does not read: %w", c.base.Redacted(), rows[0][name], err)
	}
	return n, nil
}
