// Package amtest starts a real Alertmanager (Debian's prometheus-alertmanager)
// on a loopback port for tests and posts alerts to it through its API v2.
// Without the binary a test skips, except in CI (CI=true), where it fails.
package amtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Binaries are the names the Alertmanager binary goes by (Debian, upstream).
var binaries = []string{"prometheus-alertmanager", "alertmanager"}

// readyWait bounds how long a start may take before the test fails.
const readyWait = 60 * time.Second

// config routes every alert to a receiver that sends nothing; posted alerts
// without endsAt stay firing for resolve_timeout.
const config = `global:
  resolve_timeout: 1h
route:
  receiver: "null"
receivers:
  - name: "null"
`

// Server is one running Alertmanager.
type Server struct {
	// URL is its base URL, e.g. http://127.0.0.1:40123.
	URL string
}

// Alert is one alert as POST /api/v2/alerts takes it.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
	StartsAt    time.Time         `json:"startsAt,omitzero"`
	EndsAt      time.Time         `json:"endsAt,omitzero"`
}

// Binary returns the Alertmanager binary's path; it skips t when there is
// none, or fails it when CI=true.
func Binary(t testing.TB) string {
	t.Helper()
	for _, name := range binaries {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no Alertmanager binary (%v) in CI: .ci/run must install prometheus-alertmanager", binaries)
	}
	t.Skipf("no Alertmanager binary (%v): install prometheus-alertmanager to run this test", binaries)
	return ""
}

// Start runs an Alertmanager for t on a free loopback port and waits until
// it is ready; it is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "am.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	logf, err := os.Create(filepath.Join(dir, "am.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file", cfg, "--storage.path", filepath.Join(dir, "data"),
		"--web.listen-address", addr, "--cluster.listen-address", "", "--log.level", "warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if err := <-exited; err == nil {
			t.Logf("Alertmanager exited on its own before it was stopped")
		}
		_ = logf.Close()
	})
	s := &Server{URL: "http://" + addr}
	deadline := time.Now().Add(readyWait)
	for {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("Alertmanager exited before it was ready: %v\n%s", err, log)
		default:
		}
		if s.ready() {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("Alertmanager at %s not ready after %s", s.URL, readyWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Server) ready() bool {
	resp, err := http.Get(s.URL + "/-/ready")
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Post sends alerts to POST /api/v2/alerts and waits until GET lists as
// many firing alerts as were posted in all.
func (s *Server) Post(t testing.TB, alerts ...Alert) {
	t.Helper()
	body, err := json.Marshal(alerts)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+"/api/v2/alerts", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("post alerts: %v", err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("post alerts: HTTP %d: %s", resp.StatusCode, msg)
	}
}

// WaitFiring waits until Alertmanager lists n firing alerts.
func (s *Server) WaitFiring(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(readyWait)
	for {
		got, err := s.count()
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Alertmanager lists %d firing alerts (err %v), want %d", got, err, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Server) count() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v2/alerts?active=true&silenced=false&inhibited=false", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var as []json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&as); err != nil {
		return 0, err
	}
	return len(as), nil
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ta, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("listener address %v is not TCP", l.Addr())
	}
	return ta.Port
}
