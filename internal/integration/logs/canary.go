package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/localserver"
)

// canaryReady bounds the canary VictoriaLogs server's start and ingestion.
const canaryReady = 20 * time.Second

// canaryCall reads every planted entry of a source back.
const canaryCall = `{"source":%q,"start":"2026-11-28T14:00:00Z","end":"2026-11-28T15:00:00Z","limit":50}`

// PlantCanaries writes lines into a JSON log file, one entry each: a line
// that is a JSON object becomes the entry's own members (a secret in a
// field), any other line its message. The same entries go into a
// VictoriaLogs single node of its own under dir (through /insert/jsonline),
// read by a victorialogs source: its call comes first, so the diagnosis
// reads it too. Without the victoria-logs binary it returns an error
// wrapping localserver.ErrMissing.
func (Source) PlantCanaries(dir string, lines []string) (integration.Planted, error) {
	var b strings.Builder
	for i, l := range lines {
		head := fmt.Sprintf(`{"ts":"2026-11-28T14:30:%02dZ","level":"ERROR","service":"canary","logger":"c.s.Canary"`, i%60)
		if strings.HasPrefix(l, "{") && json.Valid([]byte(l)) {
			fmt.Fprintf(&b, "%s,\"msg\":\"canary entry %d\",%s\n", head, i, l[1:])
			continue
		}
		msg, err := json.Marshal(l)
		if err != nil {
			return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
		}
		fmt.Fprintf(&b, "%s,\"msg\":%s}\n", head, msg)
	}
	path := filepath.Join(dir, "canary.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	url, stop, err := canaryStore(dir, []byte(b.String()))
	if err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[logs]]\nname = \"canary_vl\"\nbackend = \"victorialogs\"\nurl = %q\ntimezone = \"UTC\"\n\n", url) +
			fmt.Sprintf("[[logs]]\nname = \"canary\"\npaths = [%q]\nformat = \"json\"\ntimezone = \"UTC\"\n", path),
		Calls: []json.RawMessage{json.RawMessage(fmt.Sprintf(canaryCall, "canary_vl")), json.RawMessage(fmt.Sprintf(canaryCall, "canary"))},
		Stop:  stop,
	}, nil
}

// canaryStore starts a VictoriaLogs single node under dir and ingests the
// JSON lines body; it returns its URL and how to stop it.
func canaryStore(dir string, body []byte) (string, func() error, error) {
	bin, err := localserver.Lookup("victoria-logs", "go install github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@v1.52.2; .ci/victorialogs.sh",
		os.Getenv("SUPERBIZ_VICTORIALOGS_BIN"))
	if err != nil {
		return "", nil, err
	}
	addr, err := localserver.FreeAddr()
	if err != nil {
		return "", nil, err
	}
	url := "http://" + addr
	get := func(ctx context.Context, path string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", path, resp.Status)
		}
		return nil
	}
	srv, err := localserver.Start(bin, []string{"-httpListenAddr=" + addr, "-storageDataPath=" + filepath.Join(dir, "vl"), "-retentionPeriod=100y", "-loggerLevel=ERROR"},
		filepath.Join(dir, "victoria-logs.log"), canaryReady, func(ctx context.Context) error { return get(ctx, "/health") })
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryReady)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/insert/jsonline?_time_field=ts&_msg_field=msg&_stream_fields=service", bytes.NewReader(body))
	if err != nil {
		return "", nil, errors.Join(err, srv.Stop())
	}
	// Without this header VictoriaLogs ingests nothing, answering 200.
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
			err = fmt.Errorf("ingest: %s", resp.Status)
		}
	}
	if err == nil {
		err = get(ctx, "/internal/force_flush")
	}
	if err != nil {
		return "", nil, errors.Join(err, srv.Stop())
	}
	return url, srv.Stop, nil
}
