package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// The read-only transport lets a GET of the resources the tool reads leave
// and refuses, before anything is sent, every other verb, every other
// resource (secrets, configmaps) and every subresource (logs, exec); the
// access reviews leave only from doctor's transport.
func TestReadOnlyTransport(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	cases := []struct {
		method, path string
		reviews, ok  bool
	}{
		{"GET", "/api/v1/pods", false, true},
		{"GET", "/api/v1/namespaces/shop/pods", false, true},
		{"GET", "/api/v1/namespaces/shop/pods/web-1", false, true},
		{"GET", "/api/v1/namespaces/shop/events", false, true},
		{"GET", "/api/v1/nodes", false, true},
		{"GET", "/api/v1/namespaces", false, true},
		{"GET", "/apis/apps/v1/namespaces/shop/deployments", false, true},
		{"GET", "/apis/apps/v1/namespaces/shop/replicasets", false, true},
		{"GET", "/api/v1/namespaces/shop/secrets", false, false},
		{"GET", "/api/v1/secrets", false, false},
		{"GET", "/api/v1/namespaces/shop/secrets/db", false, false},
		{"GET", "/api/v1/namespaces/shop/configmaps", false, false},
		{"GET", "/api/v1/namespaces/shop/pods/web-1/log", false, false},
		{"GET", "/api/v1/namespaces/shop/pods/web-1/exec", false, false},
		{"GET", "/api/v1/namespaces/shop/pods/../secrets", false, false},
		{"GET", "/apis/apps/v1/namespaces/shop/deployments/web/scale", false, false},
		{"GET", "/version", false, false},
		{"DELETE", "/api/v1/namespaces/shop/pods/web-1", false, false},
		{"POST", "/api/v1/namespaces/shop/pods", false, false},
		{"PUT", "/api/v1/namespaces/shop/pods/web-1", false, false},
		{"PATCH", "/apis/apps/v1/namespaces/shop/deployments/web", false, false},
		{"DELETE", "/api/v1/namespaces/shop/pods/web-1", true, false},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", false, false},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", true, true},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", true, true},
		{"POST", "/api/v1/namespaces/shop/pods", true, false},
		{"GET", "/api/v1/namespaces/shop/secrets", true, false},
	}
	for _, c := range cases {
		rt := readOnly{next: http.DefaultTransport, reviews: c.reviews}
		before := sent.Load()
		req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rt.RoundTrip(req)
		if c.ok {
			if err != nil {
				t.Errorf("%s %s (reviews %v): refused: %v", c.method, c.path, c.reviews, err)
				continue
			}
			_ = resp.Body.Close()
			continue
		}
		if resp != nil {
			_ = resp.Body.Close()
		}
		if !errors.Is(err, ErrNotReadOnly) {
			t.Errorf("%s %s (reviews %v): err = %v, want the read-only refusal", c.method, c.path, c.reviews, err)
		}
		if sent.Load() != before {
			t.Errorf("%s %s: refused, but the request reached the server", c.method, c.path)
		}
	}
}

// An answer longer than MaxResponse fails with ErrTooLarge after at most
// MaxResponse bytes; one of exactly MaxResponse bytes reads whole.
func TestCappedBody(t *testing.T) {
	for _, c := range []struct {
		size int
		err  error
	}{{MaxResponse, nil}, {MaxResponse + 1, ErrTooLarge}, {10, nil}} {
		body := &capped{ReadCloser: io.NopCloser(bytes.NewReader(make([]byte, c.size))), left: MaxResponse}
		n, err := io.Copy(io.Discard, body)
		if !errors.Is(err, c.err) {
			t.Errorf("size %d: err %v, want %v", c.size, err, c.err)
		}
		if n > MaxResponse {
			t.Errorf("size %d: read %d bytes, more than the cap", c.size, n)
		}
	}
}

// A kubeconfig that cannot be read does not stop the tool being built (the
// other sources and tools work on): each call to that source is UNAVAILABLE
// naming the file and the entry to fix, and sends nothing.
func TestUnreadableKubeconfig(t *testing.T) {
	missing := t.TempDir() + "/no-such.kubeconfig"
	tool, err := New([]Source{{Name: "prod", Kubeconfig: missing, Timeout: time.Second}})
	if err != nil {
		t.Fatalf("New with a missing kubeconfig: %v", err)
	}
	c, err := tool.Canonical(json.RawMessage(`{"view":"pods","namespace":"shop"}`))
	if err != nil {
		t.Fatal(err)
	}
	out := tool.Execute(context.Background(), tools.Call{Input: c.Input, Now: time.Now(), MaxBytes: 8192})
	if out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), missing) || !strings.Contains(out.Detail.Error(), "[[kubernetes]] entry prod") {
		t.Errorf("call to a source without a kubeconfig: %s %v", out.ErrorCode, out.Detail)
	}
}
