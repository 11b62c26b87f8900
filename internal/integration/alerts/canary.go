package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/canary"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/localserver"
)

// CanaryAlert is the name of the alert the canary hook fires.
const CanaryAlert = "CanaryLeak"

// canaryReady bounds the server's start and the alert's arrival.
const canaryReady = 60 * time.Second

// canaryInstall says how to install the server the hook starts.
const canaryInstall = "Debian: apt-get install --no-install-recommends prometheus-alertmanager; .ci/metrics.sh"

// PlantCanaries starts an Alertmanager of its own under dir and fires one
// alert, CanaryAlert, carrying every line as a label value and as an
// annotation value (canary_NN), and each line's bare secret as the value
// of a secret-named annotation (password_NN): where an Alertmanager holds
// what a rule's labels and templated annotations put there. The alert is
// read back by `superbiz alerts`, MCP's list_alerts and `diagnose --alert`.
func (Source) PlantCanaries(dir string, lines []string) (p integration.Planted, err error) {
	bin, err := localserver.Lookup("prometheus-alertmanager", canaryInstall, "/usr/bin/prometheus-alertmanager", "/usr/bin/alertmanager")
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	// Two annotations per line and the alert's own two must fit what a
	// client keeps.
	if 2*len(lines)+2 > alerts.MaxPairs {
		return p, fmt.Errorf("plant canaries: %d lines do not fit the %d annotations an alert keeps", len(lines), alerts.MaxPairs)
	}
	labels := map[string]string{alerts.LabelName: CanaryAlert, alerts.LabelSeverity: "critical", alerts.LabelService: "canary"}
	annotations := map[string]string{alerts.AnnotSummary: "canary alert", alerts.AnnotDescription: "planted secrets"}
	for i, l := range lines {
		labels[fmt.Sprintf("canary_%02d", i)] = l
		annotations[fmt.Sprintf("canary_%02d", i)] = l
	}
	for i, s := range canary.Secrets(lines) {
		if s != "" {
			annotations[fmt.Sprintf("password_%02d", i)] = s
		}
	}
	body, err := json.Marshal([]map[string]any{{"labels": labels, "annotations": annotations, "startsAt": time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)}})
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	cfg := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(cfg, []byte("route:\n  receiver: \"null\"\nreceivers:\n  - name: \"null\"\n"), 0o600); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	addr, err := localserver.FreeAddr()
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	url := "http://" + addr
	srv, err := localserver.Start(bin, []string{
		"--config.file", cfg, "--storage.path", filepath.Join(dir, "alertmanager-data"),
		"--web.listen-address", addr, "--cluster.listen-address", "",
	}, filepath.Join(dir, "alertmanager.log"), canaryReady, func(ctx context.Context) error {
		return ask(ctx, http.MethodGet, url+"/-/ready", nil)
	})
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryReady)
	defer cancel()
	if err := ask(ctx, http.MethodPost, url+"/api/v2/alerts", body); err != nil {
		return p, fmt.Errorf("plant canaries: post the alert: %w (stop: %v)", err, srv.Stop())
	}
	if err := firing(ctx, url); err != nil {
		return p, fmt.Errorf("plant canaries: %w (stop: %v)", err, srv.Stop())
	}
	return integration.Planted{
		Config:   fmt.Sprintf("[alerts]\nurl = %q\n", url),
		Commands: [][]string{{"alerts"}, {"alerts", "-o", "json"}},
		MCPCalls: []integration.MCPCall{{Tool: "list_alerts", Args: json.RawMessage(`{}`)}},
		Diagnose: []string{"--alert", CanaryAlert},
		Stop:     srv.Stop,
	}, nil
}

// firing waits until Alertmanager lists the posted alert: a POST is
// accepted before GET /api/v2/alerts shows it.
func firing(ctx context.Context, url string) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/v2/alerts?active=true", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var as []json.RawMessage
			err = json.NewDecoder(resp.Body).Decode(&as)
			_ = resp.Body.Close() // read whole; nothing to report
			if err == nil && len(as) > 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the canary alert is not listed: %w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ask sends body (GET when nil) to url and wants 200 OK.
func ask(ctx context.Context, method, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return nil
}
