package httpsource

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"
)

func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxBody == 0 {
		o.MaxBody = 1 << 10
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(ctx context.Context, t *testing.T, c *Client, u string) (*Response, error) {
	t.Helper()
	req, err := c.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Do(req)
}

// The configured credentials reach the server on every request.
func TestAuthHeaders(t *testing.T) {
	// the header is reported out of band: an echo in the body is scrubbed
	seen := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
	}))
	defer srv.Close()
	for _, tt := range []struct {
		auth Auth
		want string
	}{
		{Auth{}, ""},
		{Auth{BearerToken: "tok"}, "Bearer tok"},
		{Auth{Username: "u", Password: "p"}, "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))},
	} {
		_, err := get(context.Background(), t, newClient(t, Options{Auth: tt.auth}), srv.URL)
		if got := <-seen; err != nil || got != tt.want {
			t.Errorf("auth %+v: server saw %q, %v; want %q", tt.auth, got, err, tt.want)
		}
	}
	if _, err := New(Options{Auth: Auth{BearerToken: "t", Username: "u"}, Timeout: time.Second, MaxBody: 1}); err == nil {
		t.Error("New accepted a bearer token and basic auth together")
	}
}

// An answer of exactly the cap is read; one byte more is a TooLarge error that says the cap.
func TestBodyCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", len(r.URL.Query().Get("n")))))
	}))
	defer srv.Close()
	c := newClient(t, Options{MaxBody: 8})
	if resp, err := get(context.Background(), t, c, srv.URL+"?n=12345678"); err != nil || len(resp.Body) != 8 {
		t.Fatalf("8 bytes under a cap of 8: %v", err)
	}
	_, err := get(context.Background(), t, c, srv.URL+"?n=123456789")
	var e *Error
	if !errors.As(err, &e) || e.Kind != TooLarge || !strings.Contains(e.Error(), "larger than 8 bytes") || strings.Contains(e.URL, "n=") {
		t.Errorf("9 bytes under a cap of 8: %v, want TOO_LARGE naming the cap and no query", err)
	}
}

// A server echoing the credential in any shape (as written, URL-encoded,
// base64 of user:password) never gets it into an error or a scrubbed text.
func TestScrubsEchoedSecret(t *testing.T) {
	const user, password = "oncall", "pw/Hunter2 Secret"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied: "+r.Header.Get("Authorization")+" "+password+" "+url.QueryEscape(password)+" "+url.PathEscape(password)+"\x1b[31m", http.StatusUnauthorized)
	}))
	defer echo.Close()
	c := newClient(t, Options{Auth: Auth{Username: user, Password: password}})
	resp, err := get(context.Background(), t, c, echo.URL)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Status || e.Status != http.StatusUnauthorized || resp == nil {
		t.Fatalf("err = %v, want HTTP_STATUS 401 with the response", err)
	}
	for _, leak := range []string{"Hunter2", base64.StdEncoding.EncodeToString([]byte(user + ":" + password)), "\x1b"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error %q holds %q", err, leak)
		}
	}
	if !strings.Contains(err.Error(), "answered HTTP 401: denied:") {
		t.Errorf("error %q does not quote the answer's start", err)
	}
	if got := c.Scrub("token " + url.QueryEscape(password)); strings.Contains(got, "Hunter2") {
		t.Errorf("Scrub kept the URL-encoded password: %q", got)
	}
}

// A successful answer that echoes the credential in any of its forms (a
// label value, an annotation, a JSON-escaped or base64 copy) reaches the
// caller with each replaced by the marker, and stays valid JSON.
func TestScrubsSecretFromWholeAnswer(t *testing.T) {
	for _, auth := range []Auth{{BearerToken: `tok/en+Zz9\`}, {Username: "oncall", Password: `pw/Hunter2 \`}} {
		secret := auth.BearerToken + auth.Password
		j, _ := json.Marshal(secret)
		forms := []string{
			string(j[1 : len(j)-1]),
			strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`),
			url.QueryEscape(secret), url.PathEscape(secret),
			base64.StdEncoding.EncodeToString([]byte(secret)),
			base64.RawURLEncoding.EncodeToString([]byte(secret)),
		}
		if auth.Username != "" { // basic auth: the header's base64 too
			forms = append(forms, base64.StdEncoding.EncodeToString([]byte(auth.Username+":"+secret)),
				base64.RawStdEncoding.EncodeToString([]byte(auth.Username+":"+secret)))
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			vals := make([]string, len(forms))
			for i, f := range forms {
				vals[i] = `"` + f + `"`
			}
			_, _ = w.Write([]byte(`{"status":"success","data":[` + strings.Join(vals, ",") + `]}`))
		}))
		resp, err := get(context.Background(), t, newClient(t, Options{Auth: auth, MaxBody: 1 << 16}), srv.URL)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Data []string `json:"data"`
		}
		if err := json.Unmarshal(resp.Body, &doc); err != nil || len(doc.Data) != len(forms) {
			t.Fatalf("%+v: answer no longer JSON: %v %s", auth, err, resp.Body)
		}
		for i, v := range doc.Data {
			if v != egress.Marker {
				t.Errorf("%+v: form %q reached the caller as %q", auth, forms[i], v)
			}
		}
	}
}

// hold serves requests by holding them until the client gives up.
func hold(t *testing.T) (srv *httptest.Server, arrived chan struct{}) {
	arrived = make(chan struct{}, 1)
	srv = httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, arrived
}

// A cancel by the caller is CANCELLED (and errors.Is context.Canceled), our
// timeout or the caller's deadline is TIMEOUT, a closed port UNREACHABLE.
func TestClassification(t *testing.T) {
	srv, arrived := hold(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := get(ctx, t, newClient(t, Options{}), srv.URL)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while held: %v, want CANCELLED", err)
	}

	go func() { <-arrived }()
	_, err = get(context.Background(), t, newClient(t, Options{Timeout: 100 * time.Millisecond}), srv.URL)
	if !errors.As(err, &e) || e.Kind != Timeout || !strings.Contains(err.Error(), "within 100ms (timeout)") {
		t.Errorf("held past the timeout: %v, want TIMEOUT", err)
	}

	go func() { <-arrived }()
	dctx, dcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer dcancel()
	_, err = get(dctx, t, newClient(t, Options{}), srv.URL)
	if !errors.As(err, &e) || e.Kind != Timeout {
		t.Errorf("held past the caller's deadline: %v, want TIMEOUT", err)
	}

	closed := testenv.ClosedURL(t)
	_, err = get(context.Background(), t, newClient(t, Options{}), closed)
	if !errors.As(err, &e) || e.Kind != Unreachable || !strings.Contains(err.Error(), "is not reachable") {
		t.Errorf("closed port: %v, want UNREACHABLE", err)
	}
}

// A redirect to another host is refused, so the credentials stay on the configured one.
func TestRefusesCrossHostRedirect(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host was asked, Authorization %q", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	srv := httptest.NewServer(http.RedirectHandler(otherURL, http.StatusFound))
	defer srv.Close()
	_, err := get(context.Background(), t, newClient(t, Options{Auth: Auth{BearerToken: "tok"}}), srv.URL)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Redirected || !strings.Contains(err.Error(), "redirect to another host") || strings.Contains(err.Error(), "not reachable") {
		t.Errorf("cross-host redirect: %v, want it refused as REDIRECTED, not called unreachable", err)
	}
}

// Stream hands a 2xx body over as it arrives, under the cap (then
// TOO_LARGE); a non-2xx answer comes back read, as Do returns it.
func TestStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "nope", http.StatusTeapot)
			return
		}
		_, _ = w.Write([]byte(strings.Repeat("x", len(r.URL.Query().Get("n")))))
	}))
	defer srv.Close()
	c := newClient(t, Options{MaxBody: 8})
	open := func(path string) (*Response, io.ReadCloser, error) {
		req, err := c.NewRequest(context.Background(), http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c.Stream(req)
	}
	_, body, err := open("/?n=12345678")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(body); err != nil || len(b) != 8 {
		t.Errorf("8 bytes under a cap of 8: %d, %v", len(b), err)
	}
	body.Close()
	_, body, err = open("/?n=123456789")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(body)
	body.Close()
	var e *Error
	if !errors.As(err, &e) || e.Kind != TooLarge {
		t.Errorf("9 bytes under a cap of 8: %v, want TOO_LARGE", err)
	}
	resp, body, err := open("/fail")
	if !errors.As(err, &e) || e.Kind != Status || resp == nil || resp.Status != http.StatusTeapot || body != nil || !strings.Contains(string(resp.Body), "nope") {
		t.Errorf("418: %v %+v", err, resp)
	}
}
