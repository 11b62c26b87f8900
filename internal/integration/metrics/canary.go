package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/localserver"
)

// The canary series: one sample a minute over a fixed past window (the
// server keeps it: retention 100y), read by a query over that window.
var (
	canaryStart = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	canaryEnd   = canaryStart.Add(10 * time.Minute)
)

// canaryReady bounds building the blocks and the server's start.
const canaryReady = 60 * time.Second

// canaryInstall says how to install the servers the hook starts.
const canaryInstall = "Debian: apt-get install --no-install-recommends prometheus; .ci/metrics.sh"

// PlantCanaries starts a Prometheus of its own under dir whose TSDB holds
// series carrying lines as label values (canary_info{line="…"}), written as
// OpenMetrics and turned into blocks by promtool as a backfill is; the call
// reads them back over their window.
func (Source) PlantCanaries(dir string, lines []string) (p integration.Planted, err error) {
	prom, err := localserver.Lookup("prometheus", canaryInstall)
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	promtool, err := localserver.Lookup("promtool", canaryInstall)
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	var om strings.Builder
	om.WriteString("# TYPE canary_info gauge\n")
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	for i, l := range lines {
		for at := canaryStart; !at.After(canaryEnd); at = at.Add(time.Minute) {
			fmt.Fprintf(&om, "canary_info{line=\"%s\",n=\"%d\"} 1 %d\n", esc.Replace(l), i, at.Unix())
		}
	}
	om.WriteString("# EOF\n")
	src, data := filepath.Join(dir, "canary.om"), filepath.Join(dir, "prometheus-data")
	if err := os.WriteFile(src, []byte(om.String()), 0o600); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryReady)
	defer cancel()
	if out, err := exec.CommandContext(ctx, promtool, "tsdb", "create-blocks-from", "openmetrics", src, data).CombinedOutput(); err != nil {
		return p, fmt.Errorf("plant canaries: promtool tsdb create-blocks-from openmetrics: %w: %s", err, out)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\nscrape_configs: []\n"), 0o600); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	addr, err := localserver.FreeAddr()
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	url := "http://" + addr
	srv, err := localserver.Start(prom, []string{
		"--config.file", cfg, "--storage.tsdb.path", data, "--storage.tsdb.retention.time", "100y", "--web.listen-address", addr,
	}, filepath.Join(dir, "prometheus.log"), canaryReady, func(ctx context.Context) error {
		return ready(ctx, url+"/-/ready")
	})
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	call, err := json.Marshal(map[string]any{
		"source": "canary", "query": "canary_info",
		"start": canaryStart.Format(time.RFC3339), "end": canaryEnd.Format(time.RFC3339),
	})
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[metrics]]\nname = \"canary\"\nurl = %q\nmax_series = %d\n", url, len(lines)+1),
		Calls:  []json.RawMessage{call},
		Stop:   srv.Stop,
	}, nil
}

// ready asks url for 200 OK.
func ready(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
