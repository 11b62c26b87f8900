package alerts

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/testenv"
)

func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Against a real Alertmanager: what was posted is listed newest first,
// and a name or a fingerprint finds its alert.
func TestFiringFromAlertmanager(t *testing.T) {
	am := promtest.StartAlertmanager(t)
	start := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	am.Post(t,
		promtest.Alert{Labels: map[string]string{"alertname": "HighLatency", "service": "checkout"}, Annotations: map[string]string{"summary": "p99 above 2s"}, StartsAt: start},
		promtest.Alert{Labels: map[string]string{"alertname": "DiskFull", "instance": "db1:9100"}, StartsAt: start.Add(30 * time.Minute)},
		promtest.Alert{Labels: map[string]string{"alertname": "HighLatency", "service": "orders"}, StartsAt: start.Add(time.Hour)},
	)
	am.WaitFiring(t, 3)
	c := newClient(t, Options{URL: am.URL + "/"})
	as, _, err := c.Firing(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range as {
		got = append(got, a.Name()+"/"+a.Service()+a.Instance())
	}
	if strings.Join(got, " ") != "HighLatency/orders DiskFull/db1:9100 HighLatency/checkout" {
		t.Fatalf("firing = %v, want newest first", got)
	}
	if !as[2].StartsAt.Equal(start) || as[2].Summary() != "p99 above 2s" || len(as[2].Fingerprint) != 16 {
		t.Errorf("oldest = %+v", as[2])
	}
	a, note, err := c.Find(context.Background(), "HighLatency")
	if err != nil || a.Service() != "orders" || !strings.Contains(note, "2 alerts named HighLatency are firing; using the newest") {
		t.Errorf("Find(HighLatency) = %+v, %q, %v", a, note, err)
	}
	a, _, err = c.Find(context.Background(), as[2].Fingerprint)
	if err != nil || a.Service() != "checkout" {
		t.Errorf("Find(fingerprint) = %+v, %v", a, err)
	}
	if _, _, err := c.Find(context.Background(), "NoSuchAlert"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(NoSuchAlert) err = %v, want ErrNotFound", err)
	}
}

// guard stands in front of Alertmanager like an authenticating proxy: it
// forwards only requests carrying want in their Authorization header.
func guard(t *testing.T, target, want string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != want {
			// A careless proxy echoes what it got, without the scheme, so
			// no secret shape gives it away: the client must still hide it.
			_, raw, _ := strings.Cut(got, " ")
			if user, pass, ok := r.BasicAuth(); ok {
				raw = user + " " + pass
			}
			http.Error(w, "unauthorized: "+raw+" rejected", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Credentials reach the server (bearer or basic); wrong ones are a clear
// AUTH failure that never repeats the secret, even when the server echoes it.
func TestAuthentication(t *testing.T) {
	am := promtest.StartAlertmanager(t)
	am.Post(t, promtest.Alert{Labels: map[string]string{"alertname": "A"}})
	am.WaitFiring(t, 1)
	const token, password = "tok-Hunter2Secret", "pw-Hunter2Secret"
	bearer := guard(t, am.URL, "Bearer "+token)
	basicReq, _ := http.NewRequest(http.MethodGet, "/", nil)
	basicReq.SetBasicAuth("oncall", password)
	basic := guard(t, am.URL, basicReq.Header.Get("Authorization"))
	for _, tt := range []struct {
		name    string
		opts    Options
		wantErr bool
	}{
		{"bearer", Options{URL: bearer, BearerToken: token}, false},
		{"basic", Options{URL: basic, Username: "oncall", Password: password}, false},
		{"wrong bearer", Options{URL: bearer, BearerToken: "wrong-" + token}, true},
		{"wrong password", Options{URL: basic, Username: "oncall", Password: "wrong-" + password}, true},
		{"none", Options{URL: bearer}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, _, err := newClient(t, tt.opts).Firing(context.Background())
			if !tt.wantErr {
				if err != nil || len(as) != 1 {
					t.Fatalf("Firing = %d alerts, %v", len(as), err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindAuth || e.Status != http.StatusUnauthorized {
				t.Fatalf("err = %v, want an AUTH failure with HTTP 401", err)
			}
			if strings.Contains(err.Error(), "Hunter2Secret") || !strings.Contains(err.Error(), "refused the credentials (HTTP 401)") {
				t.Errorf("message = %q", err)
			}
		})
	}
}

// Failures are classified with a message and a hint a person can act on.
func TestFailures(t *testing.T) {
	closed := testenv.ClosedURL(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>Prometheus Time Series Collection and Processing Server</html>"))
	}))
	defer page.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "internal error\x1b[31m", http.StatusInternalServerError)
	}))
	defer broken.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	for _, tt := range []struct {
		name    string
		opts    Options
		kind    Kind
		message string
		hint    string
	}{
		{"unreachable", Options{URL: closed}, KindUnreachable, "is not reachable", "start Alertmanager or fix [alerts] url"},
		{"not alertmanager", Options{URL: page.URL}, KindNotAlertmanager, "is not an Alertmanager API v2", "usually port 9093"},
		{"server error", Options{URL: broken.URL}, KindStatus, "answered HTTP 500: internal error", ""},
		{"timeout", Options{URL: slow.URL, Timeout: 200 * time.Millisecond}, KindTimeout, "did not answer within alerts.timeout", "raise alerts.timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := newClient(t, tt.opts).Firing(context.Background())
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.kind {
				t.Fatalf("err = %v, want kind %s", err, tt.kind)
			}
			if !strings.Contains(e.Error(), tt.message) || !strings.Contains(e.Hint(), tt.hint) || strings.ContainsRune(e.Error(), 0x1b) {
				t.Errorf("message %q, hint %q", e.Error(), e.Hint())
			}
		})
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{
		{URL: "am:9093", Timeout: time.Second},
		{URL: "http://u:p@am:9093", Timeout: time.Second},
		{URL: "http://am:9093", Timeout: 0},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

// HTTP 403 is refused credentials like 401: AUTH with the status.
func TestForbiddenIsAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer srv.Close()
	_, _, err := newClient(t, Options{URL: srv.URL, BearerToken: "tok-Hunter2Secret"}).Firing(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindAuth || e.Status != http.StatusForbidden || !strings.Contains(err.Error(), "refused the credentials (HTTP 403)") {
		t.Fatalf("err = %v, want an AUTH failure with HTTP 403", err)
	}
}

// Alerts follow query_metrics' one redirect rule (httpsource): a redirect
// on the same host is followed, one to another host is refused and the
// credential never reaches it.
func TestRedirectRule(t *testing.T) {
	am := promtest.StartAlertmanager(t)
	am.Post(t, promtest.Alert{Labels: map[string]string{"alertname": "A"}})
	am.WaitFiring(t, 1)
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization") != "")
		http.Error(w, "elsewhere", http.StatusNotFound)
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/old/api/v2/alerts", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/same"+r.URL.RequestURI()[len("/old"):], http.StatusFound)
	})
	proxy := httputil.NewSingleHostReverseProxy(mustURL(t, am.URL))
	mux.Handle("/same/", http.StripPrefix("/same", proxy))
	mux.HandleFunc("/cross/api/v2/alerts", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/api/v2/alerts", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	as, _, err := newClient(t, Options{URL: srv.URL + "/old", BearerToken: "tok-Hunter2Secret"}).Firing(context.Background())
	if err != nil || len(as) != 1 {
		t.Fatalf("same-host redirect: %d alerts, %v", len(as), err)
	}
	_, _, err = newClient(t, Options{URL: srv.URL + "/cross", BearerToken: "tok-Hunter2Secret"}).Firing(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnreachable || !strings.Contains(err.Error(), "redirect to another host") {
		t.Fatalf("cross-host redirect: err = %v, want it refused", err)
	}
	if leaked.Load() {
		t.Error("the credential reached the other host")
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
