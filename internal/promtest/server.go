package promtest

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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"

	"golang.org/x/crypto/bcrypt"
)

// Bounds of starting a server: how long it may take to answer ready, and how
// many free ports are tried when another process takes the chosen one first.
const (
	readyTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second
	portAttempts = 3
	logTail      = 4 << 10
)

// Server is one running server: its base URL (no trailing slash).
type Server struct {
	URL string
	// Username and Password are the basic-auth credentials it demands, if any.
	Username, Password string
}

// Binary returns the path of the named server binary, skipping the test when
// it is missing (failing it in CI, where .ci/metrics.sh installs it).
func Binary(t testing.TB, name string) string {
	t.Helper()
	testenv.SkipShort(t, "starts a real "+name)
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/bin", "/usr/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	testenv.Missing(t, name+" is not installed (Debian: apt-get install --no-install-recommends prometheus prometheus-alertmanager victoria-metrics)",
		".ci/run must source .ci/metrics.sh")
	return ""
}

// PromOptions changes how Prometheus is started.
type PromOptions struct {
	// BasicAuth, when set, makes every endpoint demand these credentials
	// (through --web.config.file with a bcrypt hash).
	BasicAuth bool
}

// Test credentials of a Prometheus started with BasicAuth.
const (
	AuthUser     = "grafana"
	AuthPassword = "prom-test-secret-7d1f"
)

// Prometheus starts Prometheus on the incident history: it writes the
// history as OpenMetrics, builds TSDB blocks with promtool, serves them on a
// free loopback port and waits for /-/ready. The server stops with the test.
func Prometheus(t testing.TB, opts PromOptions) *Server {
	t.Helper()
	prom, promtool := Binary(t, "prometheus"), Binary(t, "promtool")
	dir := t.TempDir()
	om := filepath.Join(dir, "history.om")
	if err := os.WriteFile(om, []byte(OpenMetrics()), 0o600); err != nil {
		t.Fatalf("write the OpenMetrics history: %v", err)
	}
	data := filepath.Join(dir, "data")
	out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\nscrape_configs: []\n"), 0o600); err != nil {
		t.Fatalf("write the Prometheus config: %v", err)
	}
	srv := &Server{}
	extra := []string{}
	if opts.BasicAuth {
		hash, err := bcrypt.GenerateFromPassword([]byte(AuthPassword), bcrypt.MinCost)
		if err != nil {
			t.Fatalf("bcrypt: %v", err)
		}
		web := filepath.Join(dir, "web.yml")
		if err := os.WriteFile(web, fmt.Appendf(nil, "basic_auth_users:\n  %s: %q\n", AuthUser, hash), 0o600); err != nil {
			t.Fatalf("write the web config: %v", err)
		}
		extra = append(extra, "--web.config.file", web)
		srv.Username, srv.Password = AuthUser, AuthPassword
	}
	srv.URL = start(t, "prometheus", func(addr string) *exec.Cmd {
		args := append([]string{
			"--config.file", cfg, "--storage.tsdb.path", data, "--storage.tsdb.retention.time", "100y",
			"--web.listen-address", addr,
		}, extra...)
		return exec.Command(prom, args...)
	}, "/-/ready", srv)
	return srv
}

// VictoriaMetrics starts single-node VictoriaMetrics on a free loopback port,
// imports the incident history through /api/v1/import/prometheus and flushes
// it so queries see it. The server stops with the test.
func VictoriaMetrics(t testing.TB) *Server {
	t.Helper()
	vm := Binary(t, "victoria-metrics")
	dir := t.TempDir()
	srv := &Server{}
	srv.URL = start(t, "victoria-metrics", func(addr string) *exec.Cmd {
		return exec.Command(vm, "-storageDataPath", filepath.Join(dir, "data"), "-httpListenAddr", addr,
			"-retentionPeriod", "100y")
	}, "/health", srv)
	post(t, srv.URL+"/api/v1/import/prometheus", "text/plain", []byte(Exposition()), http.StatusNoContent)
	post(t, srv.URL+"/internal/force_flush", "", nil, http.StatusOK)
	return srv
}

// Alertmanager is a running Alertmanager (API v2 under URL/api/v2).
type Alertmanager struct {
	Server
}

// Alert is one alert as posted to Alertmanager's POST /api/v2/alerts.
type Alert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt,omitzero"`
	EndsAt       time.Time         `json:"endsAt,omitzero"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// StartAlertmanager starts Alertmanager with a single null receiver on a
// free loopback port, clustering off, and waits for /-/ready.
func StartAlertmanager(t testing.TB) *Alertmanager {
	t.Helper()
	bin := Binary(t, "prometheus-alertmanager")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "am.yml")
	if err := os.WriteFile(cfg, []byte("route:\n  receiver: \"null\"\nreceivers:\n  - name: \"null\"\n"), 0o600); err != nil {
		t.Fatalf("write the Alertmanager config: %v", err)
	}
	am := &Alertmanager{}
	am.URL = start(t, "alertmanager", func(addr string) *exec.Cmd {
		return exec.Command(bin, "--config.file", cfg, "--storage.path", filepath.Join(dir, "data"),
			"--web.listen-address", addr, "--cluster.listen-address", "")
	}, "/-/ready", &am.Server)
	return am
}

// Post sends alerts to Alertmanager's POST /api/v2/alerts and fails the test
// unless it accepts them.
func (a *Alertmanager) Post(t testing.TB, alerts ...Alert) {
	t.Helper()
	body, err := json.Marshal(alerts)
	if err != nil {
		t.Fatalf("encode alerts: %v", err)
	}
	post(t, a.URL+"/api/v2/alerts", "application/json", body, http.StatusOK)
}

// WaitFiring waits until Alertmanager lists n firing alerts: a POST is
// accepted before GET /api/v2/alerts shows it.
func (a *Alertmanager) WaitFiring(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := a.firing()
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Alertmanager lists %d firing alerts (err %v), want %d", got, err, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// firing counts the alerts GET /api/v2/alerts lists as active.
func (a *Alertmanager) firing() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL+"/api/v2/alerts?active=true&silenced=false&inhibited=false", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var as []json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&as); err != nil {
		return 0, err
	}
	return len(as), nil
}

// start runs the command built for a free loopback address until path
// answers 200, retrying on another port when the process exits early; it
// registers a cleanup that stops the process and returns the base URL.
func start(t testing.TB, name string, build func(addr string) *exec.Cmd, path string, srv *Server) string {
	t.Helper()
	var lastErr error
	for range portAttempts {
		addr, err := freeAddr()
		if err != nil {
			t.Fatalf("%s: find a free port: %v", name, err)
		}
		cmd := build(addr)
		var logs tailBuffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: start: %v", name, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		url := "http://" + addr
		err = waitReady(url+path, srv, exited)
		if err == nil {
			t.Cleanup(func() { stop(t, name, cmd, exited) })
			return url
		}
		stop(t, name, cmd, exited)
		lastErr = fmt.Errorf("%w\n%s log tail:\n%s", err, name, logs.String())
	}
	t.Fatalf("%s did not become ready after %d attempts: %v", name, portAttempts, lastErr)
	return ""
}

// waitReady polls url until it answers 200 (with srv's credentials), the
// process exits, or readyTimeout passes.
func waitReady(url string, srv *Server, exited <-chan error) error {
	deadline := time.Now().Add(readyTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited before ready: %v", err)
		default:
		}
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if srv.Username != "" {
			req.SetBasicAuth(srv.Username, srv.Password)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200 within %s", url, readyTimeout)
}

// stop sends SIGTERM to the process this package started and kills it if it
// has not exited within stopTimeout.
func stop(t testing.TB, name string, cmd *exec.Cmd, exited <-chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	var status error
	select {
	case status = <-exited:
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		status = <-exited
		t.Logf("%s (pid %d) ignored SIGTERM for %s and was killed", name, cmd.Process.Pid, stopTimeout)
	}
	_ = status // a server stopped by a signal exits non-zero: its status says nothing here
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// post sends body to url and fails the test unless the answer has status want.
func post(t testing.TB, url, contentType string, body []byte, want int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, logTail))
	if resp.StatusCode != want {
		t.Fatalf("POST %s: HTTP %d (want %d): %s", url, resp.StatusCode, want, strings.TrimSpace(string(msg)))
	}
}

// tailBuffer keeps the last logTail bytes a server wrote, for failure messages.
type tailBuffer struct{ b []byte }

// Write keeps the tail of p.
func (w *tailBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	if len(w.b) > logTail {
		w.b = w.b[len(w.b)-logTail:]
	}
	return len(p), nil
}

// String returns the kept tail.
func (w *tailBuffer) String() string { return string(w.b) }

// LiveOptions is what a Prometheus that evaluates rules is started with.
type LiveOptions struct {
	// History is OpenMetrics text backfilled before it starts ("" for none).
	History string
	// Rules is a rule file's YAML: its alerting rules are evaluated live.
	Rules string
	// Targets are host:port addresses scraped at /metrics.
	Targets []string
	// Alertmanager is the host:port alerts are sent to ("" for none).
	Alertmanager string
	// Interval is the scrape and evaluation interval (default 1s).
	Interval time.Duration
}

// LivePrometheus starts Prometheus that scrapes opts.Targets and evaluates
// opts.Rules every opts.Interval, sending alerts to opts.Alertmanager, on
// the backfilled opts.History: an alert that fires and resolves while the
// test runs is written to its ALERTS series as Prometheus writes it in
// production. The server stops with the test.
func LivePrometheus(t testing.TB, opts LiveOptions) *Server {
	t.Helper()
	prom, promtool := Binary(t, "prometheus"), Binary(t, "promtool")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if opts.History != "" {
		om := filepath.Join(dir, "history.om")
		if err := os.WriteFile(om, []byte(opts.History), 0o600); err != nil {
			t.Fatalf("write the OpenMetrics history: %v", err)
		}
		out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
		}
	}
	every := opts.Interval
	if every <= 0 {
		every = time.Second
	}
	rules := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(rules, []byte(opts.Rules), 0o600); err != nil {
		t.Fatalf("write the rules: %v", err)
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: %s\n  evaluation_interval: %s\nrule_files: [%q]\n", every, every, rules)
	if len(opts.Targets) > 0 {
		q := make([]string, len(opts.Targets))
		for i, tg := range opts.Targets {
			q[i] = strconv.Quote(tg)
		}
		fmt.Fprintf(&cfg, "scrape_configs:\n  - job_name: app\n    static_configs:\n      - targets: [%s]\n", strings.Join(q, ", "))
	}
	if opts.Alertmanager != "" {
		fmt.Fprintf(&cfg, "alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: [%q]\n", opts.Alertmanager)
	}
	path := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o600); err != nil {
		t.Fatalf("write the Prometheus config: %v", err)
	}
	srv := &Server{}
	srv.URL = start(t, "prometheus", func(addr string) *exec.Cmd {
		return exec.Command(prom, "--config.file", path, "--storage.tsdb.path", data, "--storage.tsdb.retention.time", "100y",
			"--web.listen-address", addr)
	}, "/-/ready", srv)
	return srv
}
