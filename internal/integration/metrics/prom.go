package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// promReady bounds how long a pack's Prometheus may take to answer ready.
const promReady = 60 * time.Second

// metricsMissing says why metrics packs cannot run here ("" when they can):
// promtool and prometheus must both be on PATH.
func metricsMissing() string {
	for _, name := range []string{"promtool", "prometheus"} {
		if _, err := exec.LookPath(name); err != nil {
			return name + " is not on PATH, so metrics.om cannot be served"
		}
	}
	return ""
}

// prometheus is one pack's Prometheus, serving its metrics.om.
type prometheus struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// startPrometheus backfills om into TSDB blocks under dir with promtool and
// serves them with prometheus on a free loopback port until stop.
func startPrometheus(ctx context.Context, om, dir string) (*prometheus, error) {
	data := filepath.Join(dir, "tsdb")
	if out, err := exec.CommandContext(ctx, "promtool", "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("promtool tsdb create-blocks-from openmetrics %s: %w: %s", om, err, out)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\nscrape_configs: []\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write the Prometheus config: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("find a free loopback port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("free the loopback port: %w", err)
	}
	p := &prometheus{URL: "http://" + addr, done: make(chan error, 1)}
	p.cmd = exec.Command("prometheus", "--config.file", cfg, "--storage.tsdb.path", data,
		"--storage.tsdb.retention.time", "100y", "--web.listen-address", addr)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start prometheus: %w", err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	if err := p.waitReady(ctx); err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return p, nil
}

func (p *prometheus) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(promReady)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("prometheus exited before it was ready: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/-/ready", nil)
		if err != nil {
			return fmt.Errorf("prometheus ready check: %w", err)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("prometheus was not ready within 60s")
}

// stop ends the server and waits for it; its exit status after the kill
// says nothing, a failure to kill or to wait is the error.
func (p *prometheus) stop() error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop prometheus: %w", err)
	}
	var exit *exec.ExitError
	if err := <-p.done; err != nil && !errors.As(err, &exit) {
		return fmt.Errorf("wait for prometheus: %w", err)
	}
	return nil
}
