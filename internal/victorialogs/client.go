package victorialogs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds of one request.
const (
	// DefaultMaxBytes bounds one answer's body when Options give none.
	DefaultMaxBytes = 4 << 20
	// maxErrorBody bounds the part of an error answer kept in the error.
	maxErrorBody = 512
)

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

// Client reads one VictoriaLogs source through a ReadOnly transport.
type Client struct {
	opts    Options
	base    *url.URL
	account string
	project string
	http    *http.Client
}

// New checks the options and builds the client.
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
		if _, err := strconv.ParseUint(a, 10, 32); !ok || err != nil {
			return nil, fmt.Errorf("victorialogs: tenant %q is not AccountID:ProjectID (two numbers)", o.Tenant)
		}
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return nil, fmt.Errorf("victorialogs: tenant %q is not AccountID:ProjectID (two numbers)", o.Tenant)
		}
		c.account, c.project = a, p
	}
	if o.Bearer != "" && (o.Username != "" || o.Password != "") {
		return nil, errors.New("victorialogs: give a username and password or a bearer token, not both")
	}
	if c.opts.MaxBytes <= 0 {
		c.opts.MaxBytes = DefaultMaxBytes
	}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = 30 * time.Second
	}
	c.http = &http.Client{Transport: ReadOnly{Base: u.Path}, Timeout: c.opts.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c, nil
}

// Error is an answer VictoriaLogs could not give: the status (0 for a
// failure before any answer), what it said (bounded), and the window asked.
type Error struct {
	URL, Window string
	Status      int
	Said        string
	Err         error
}

func (e *Error) Error() string {
	switch {
	case e.Status != 0:
		return fmt.Sprintf("victorialogs %s answered HTTP %d for the window %s: %s", e.URL, e.Status, e.Window, e.Said)
	case errors.Is(e.Err, context.DeadlineExceeded):
		return fmt.Sprintf("victorialogs %s gave no answer in time for the window %s: %v", e.URL, e.Window, e.Err)
	}
	return fmt.Sprintf("victorialogs %s could not be read for the window %s: %v", e.URL, e.Window, e.Err)
}

// Unwrap gives the cause.
func (e *Error) Unwrap() error { return e.Err }

// Unavailable reports whether the source (or one of its storage nodes)
// could not answer: a 502, 503 or 504, or no answer at all.
func (e *Error) Unavailable() bool {
	return e.Status == 0 || e.Status == http.StatusBadGateway || e.Status == http.StatusServiceUnavailable || e.Status == http.StatusGatewayTimeout
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
	fail := func(status int, said string, err error) error {
		return &Error{URL: c.base.Redacted(), Window: window, Status: status, Said: said, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath(SelectPrefix, "logsql/query").String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fail(0, "", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.account != "" {
		req.Header.Set("AccountID", c.account)
		req.Header.Set("ProjectID", c.project)
	}
	switch {
	case c.opts.Bearer != "":
		req.Header.Set("Authorization", "Bearer "+c.opts.Bearer)
	case c.opts.Username != "" || c.opts.Password != "":
		req.SetBasicAuth(c.opts.Username, c.opts.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fail(0, "", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBytes+1))
	if err != nil {
		return nil, fail(0, "", fmt.Errorf("read the answer: %w", err))
	}
	if resp.StatusCode != http.StatusOK {
		said := strings.Join(strings.Fields(string(body[:min(len(body), maxErrorBody)])), " ")
		return nil, fail(resp.StatusCode, said, nil)
	}
	if int64(len(body)) > c.opts.MaxBytes {
		return nil, fail(0, "", fmt.Errorf("the answer is over %d bytes: narrow the window or the filters", c.opts.MaxBytes))
	}
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
			return nil, fail(0, "", fmt.Errorf("an answer line is not a JSON object: %w", err))
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
		return nil, fail(0, "", fmt.Errorf("read the answer: %w", err))
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
