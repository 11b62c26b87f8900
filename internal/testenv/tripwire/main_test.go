package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/registry"
)

// freePort returns a loopback port nothing listens on; busyPort one this
// test holds open until it ends. Neither is ever a real default port.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func busyPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

func TestTripwire(t *testing.T) {
	type conn func(t *testing.T, port int)
	httpGet := func(t *testing.T, port int) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/version", port))
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Errorf("read the refusal: %v", err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("status %d, want 503 so no test can take it for an answer (body %q)", resp.StatusCode, body)
		}
	}
	silent := func(t *testing.T, port int) { // a MySQL client waits for the server to speak first
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if b, _ := io.ReadAll(c); !bytes.HasPrefix(b, []byte("HTTP/1.1 503")) {
			t.Errorf("a silent client read %q, want the 503 and a close", b)
		}
	}
	tests := []struct {
		name       string
		busy       bool // the port is held by another listener before the tripwire starts
		connect    conn
		wantRecord []string // substrings of the one record; nil: no record
		wantStderr string
	}{
		{"http probe on a watched port", false, httpGet, []string{`"GET /api/version HTTP/1.1"`, fmt.Sprintf("pid %d", os.Getpid())}, "watching 127.0.0.1:"},
		{"silent client on a watched port", false, silent, []string{`"(no bytes)"`}, "watching 127.0.0.1:"},
		{"busy port is not watched", true, nil, nil, "not watched: 127.0.0.1:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			if tc.busy {
				port = busyPort(t)
			}
			dir := t.TempDir()
			out, ready := filepath.Join(dir, "record"), filepath.Join(dir, "ready")
			var stderr bytes.Buffer // written by run only, read once it returned
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"-out", out, "-ready", ready, "-ports", strconv.Itoa(port), "-read-timeout", "300ms"}, &stderr)
			}()
			waitFor(t, ready, done, &stderr)
			if tc.connect != nil {
				tc.connect(t, port)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
			}
			if want := tc.wantStderr + strconv.Itoa(port); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
			rec, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(rec), "\n"), "\n")
			if tc.wantRecord == nil {
				if len(rec) != 0 {
					t.Errorf("recorded %q, want nothing", rec)
				}
				return
			}
			if len(lines) != 1 {
				t.Fatalf("recorded %d lines, want 1:\n%s", len(lines), rec)
			}
			if !strings.HasPrefix(lines[0], strconv.Itoa(port)+"\t") {
				t.Errorf("record %q does not start with the port", lines[0])
			}
			for _, want := range tc.wantRecord {
				if !strings.Contains(lines[0], want) {
					t.Errorf("record %q lacks %q", lines[0], want)
				}
			}
		})
	}
}

// waitFor waits until the tripwire wrote its ready file, or fails when it
// exited first (with its stderr) or took longer than 10 s.
func waitFor(t *testing.T, ready string, done chan int, stderr *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			return
		}
		select {
		case code := <-done:
			t.Fatalf("tripwire exited %d before it was ready:\n%s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("tripwire not ready after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestParsePorts(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{defaultPorts, "[11434 9090 9093 3306 5432]", false},
		{" 1, 65535 ,", "[1 65535]", false},
		{"", "", true},
		{"0", "", true},
		{"65536", "", true},
		{"http", "", true},
	}
	for _, tc := range tests {
		got, err := parsePorts(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parsePorts(%q) error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && fmt.Sprint(got) != tc.want {
			t.Errorf("parsePorts(%q) = %v, want %s", tc.in, got, tc.want)
		}
	}
}

// TestDefaultPortsFollowConfig: the port of every URL the configuration
// defaults to is watched, so a new default cannot slip past the tripwire.
func TestDefaultPortsFollowConfig(t *testing.T) {
	d := registry.Defaults()
	urls := []string{d.Model.Host.Reveal(), d.Model.URL.Reveal(), alertsource.Of(&d).URL}
	for _, m := range metricsource.Entries(&d) {
		urls = append(urls, m.URL)
	}
	watched, err := parsePorts(defaultPorts)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("default URL %q: %v", raw, err)
		}
		p, err := strconv.Atoi(u.Port())
		if err != nil {
			t.Fatalf("default URL %q has no port: %v", raw, err)
		}
		if !slices.Contains(watched, p) {
			t.Errorf("default URL %q: port %d is not among the watched %s", raw, p, defaultPorts)
		}
	}
}
