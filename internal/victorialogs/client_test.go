package victorialogs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/internal/vlogstest"
)

// window is the fixtures' window.
var (
	winStart = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	winEnd   = winStart.Add(30 * time.Minute)
)

// fixtures are n entries a second apart from winStart, every third an
// ERROR of checkout, the rest INFO of cart; one entry has no level.
func fixtures(n int) []string {
	var lines []string
	for i := range n {
		at := winStart.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		switch {
		case i == n-1:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"service":"cart","msg":"no level here %d"}`, at, i))
		case i%3 == 0:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"error","service":"checkout","msg":"Upstream payment Timeout after 3000ms #%d"}`, at, i))
		default:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"INFO","service":"cart","msg":"item added #%d"}`, at, i))
		}
	}
	return lines
}

func filter() Filter {
	return Filter{Start: winStart, End: winEnd, LevelField: "level", ServiceField: "service"}
}

// Counts are exact and filters case-insensitive as on files; the newest
// entries come back for a limit; a hostile service or word matches
// nothing instead of widening the query.
func TestQueryOnASingleNode(t *testing.T) {
	s := vlogstest.Single(t)
	vlogstest.Ingest(t, s, fixtures(90), "service")
	c, err := New(Options{URL: s.URL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		edit func(*Filter)
		want int64
	}{
		{"all", func(*Filter) {}, 90},
		{"ERROR", func(f *Filter) { f.Levels = []string{"ERROR"} }, 30},
		{"service CHECKOUT", func(f *Filter) { f.Service = "CHECKOUT" }, 30},
		{"words", func(f *Filter) { f.Words = []string{"payment", "timeout"} }, 30},
		{"word substring", func(f *Filter) { f.Words = []string{"pay"} }, 30},
		{"hostile service", func(f *Filter) { f.Service = `checkout" or service:*` }, 0},
		{"hostile word", func(f *Filter) { f.Words = []string{`") or (_msg:*`} }, 0},
		{"regexp word", func(f *Filter) { f.Words = []string{".*"} }, 0},
		{"half window, both ends in", func(f *Filter) { f.End = winStart.Add(45 * time.Second) }, 46},
		{"service or missing", func(f *Filter) { f.Service, f.ServiceOrMissing = "checkout", true }, 30},
		{"service missing", func(f *Filter) { f.ServiceMissing = true }, 0},
	} {
		f := filter()
		tt.edit(&f)
		n, err := c.Count(ctx, f.CountQuery(), "matched", f)
		if err != nil || n != tt.want {
			t.Errorf("%s: %d, %v; want %d (%s)", tt.name, n, err, tt.want, f.CountQuery())
		}
	}
	f := filter()
	f.Levels = []string{"ERROR"}
	rows, err := c.Query(ctx, f.EntriesQuery(), 2, f)
	if err != nil || len(rows) != 2 {
		t.Fatalf("entries: %v %v", rows, err)
	}
	for _, r := range rows {
		if !strings.Contains(r["_msg"], "#87") && !strings.Contains(r["_msg"], "#84") {
			t.Errorf("limit 2 gave %q, want the newest two errors (#87, #84)", r["_msg"])
		}
	}
	u := filter()
	u.LevelMissing = true
	n, err := c.Count(ctx, u.CountQuery(), "matched", u)
	if err != nil || n != 1 {
		t.Errorf("level unread: %d %v, want 1", n, err)
	}
	// The byte cap is an error, never a silent cut.
	small, _ := New(Options{URL: s.URL, Timeout: 5 * time.Second, MaxBytes: 200})
	if _, err := small.Query(ctx, filter().EntriesQuery(), 50, filter()); err == nil || !strings.Contains(err.Error(), "larger than 200 bytes") {
		t.Errorf("an answer over the cap: %v", err)
	}
	// Cancellation reaches the request.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Query(cctx, filter().EntriesQuery(), 5, filter()); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: %v", err)
	}
}

// With a storage node of a two-node cluster down, the front end's 502 is
// an error naming the node and the window, never a partial answer.
func TestClusterNodeDown(t *testing.T) {
	front, nodes := vlogstest.Cluster(t)
	vlogstest.Ingest(t, front, fixtures(60), "service")
	for _, n := range nodes {
		vlogstest.Flush(t, n)
	}
	c, err := New(Options{URL: front.URL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := filter()
	if n, err := c.Count(context.Background(), f.CountQuery(), "matched", f); err != nil || n != 60 {
		t.Fatalf("both nodes up: %d %v, want 60", n, err)
	}
	nodes[1].Stop(t)
	_, err = c.Count(context.Background(), f.CountQuery(), "matched", f)
	var ve *Error
	if !errors.As(err, &ve) || !ve.Unavailable() || !strings.Contains(err.Error(), nodes[1].Addr) || !strings.Contains(err.Error(), "2026-11-20T09:00:00Z..2026-11-20T09:30:00Z") {
		t.Fatalf("a node down: %v, want an unavailable error naming %s and the window", err, nodes[1].Addr)
	}
}

// Only reads of /select/* leave: writes, deletes, internal endpoints, a
// path climbing out of /select/ and allow_partial_response are refused
// before any byte is sent.
func TestReadOnlyTransport(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	client := &http.Client{Transport: ReadOnly{Base: "/vl"}}
	for _, tt := range []struct {
		method, path string
		sent         bool
	}{
		{http.MethodPost, "/vl/select/logsql/query", true},
		{http.MethodGet, "/vl/select/logsql/hits", true},
		{http.MethodPost, "/vl/insert/jsonline", false},
		{http.MethodPost, "/vl/delete/run_task", false},
		{http.MethodGet, "/vl/internal/force_flush", false},
		{http.MethodGet, "/select/logsql/query", false},
		{http.MethodGet, "/vl/select/../insert/jsonline", false},
		{http.MethodDelete, "/vl/select/logsql/query", false},
		{http.MethodPost, "/vl/select/logsql/query?allow_partial_response=1", false},
	} {
		before := hits.Load()
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		req.URL.Path = strings.SplitN(tt.path, "?", 2)[0] // keep ".." as written
		if _, q, ok := strings.Cut(tt.path, "?"); ok {
			req.URL.RawQuery = q
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if sent := hits.Load() > before; sent != tt.sent || (err == nil) != tt.sent {
			t.Errorf("%s %s: sent %v (err %v), want sent %v", tt.method, tt.path, sent, err, tt.sent)
		}
	}
}

// The tenant goes out as VictoriaLogs' AccountID and ProjectID headers and
// the credential as basic auth; a server echoing the password back in an
// error has it scrubbed from the error; a bad tenant is refused up front.
func TestTenantAndCredentials(t *testing.T) {
	const pw = "vl-Secret-77c1"
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		u, p, _ := r.BasicAuth()
		http.Error(w, "denied for "+u+":"+p, http.StatusUnauthorized)
	}))
	defer srv.Close()
	c, err := New(Options{URL: srv.URL, Tenant: "12:34", Username: "reader", Password: pw, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Query(context.Background(), filter().EntriesQuery(), 1, filter())
	var ve *Error
	if !errors.As(err, &ve) || ve.Unavailable() || !strings.Contains(err.Error(), "HTTP 401") || strings.Contains(err.Error(), pw) {
		t.Errorf("a 401 echoing the password: %v", err)
	}
	if got.Get("AccountID") != "12" || got.Get("ProjectID") != "34" || !strings.HasPrefix(got.Get("Authorization"), "Basic ") {
		t.Errorf("headers sent: %v", got)
	}
	for _, bad := range []string{"12", "a:1", "1:", "-1:2"} {
		if _, err := New(Options{URL: srv.URL, Tenant: bad}); err == nil {
			t.Errorf("tenant %q accepted", bad)
		}
	}
}

// The servers .ci/victorialogs.sh started (a single node and a two-node
// cluster's front end) answer a read through the read-only client: an
// empty window counts 0, exactly, on both.
func TestCIServersAnswer(t *testing.T) {
	for _, env := range []string{"SUPERBIZ_TEST_VICTORIALOGS_URL", "SUPERBIZ_TEST_VICTORIALOGS_CLUSTER_URL"} {
		u := os.Getenv(env)
		if u == "" {
			testenv.Missing(t, env+" is not set: source .ci/victorialogs.sh", ".ci/run must source .ci/victorialogs.sh")
		}
		c, err := New(Options{URL: u, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		f := Filter{Start: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(1999, 1, 2, 0, 0, 0, 0, time.UTC)}
		if n, err := c.Count(context.Background(), f.CountQuery(), "matched", f); err != nil || n != 0 {
			t.Errorf("%s (%s): %d, %v; want 0", env, u, n, err)
		}
	}
}
