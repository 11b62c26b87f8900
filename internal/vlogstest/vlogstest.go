// Package vlogstest starts real VictoriaLogs servers for tests (the
// victoria-logs binary .ci/victorialogs.sh installs): a single node, or a
// cluster of two storage nodes behind a front end, on free loopback ports,
// and ingests fixtures through /insert/jsonline with the header it needs.
package vlogstest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/localserver"
	"github.com/superbiz/superbiz/internal/testenv"
)

// EnvBinary names the victoria-logs binary (.ci/victorialogs.sh exports it).
const EnvBinary = "SUPERBIZ_VICTORIALOGS_BIN"

// ready bounds one server's start.
const ready = 20 * time.Second

// Server is one running victoria-logs process.
type Server struct {
	URL  string
	Addr string
	proc *localserver.Process
}

// Stop stops the server now (a storage node going down).
func (s *Server) Stop(t testing.TB) {
	if err := s.proc.Stop(); err != nil {
		t.Error(err)
	}
}

// Binary is the victoria-logs binary: $SUPERBIZ_VICTORIALOGS_BIN, PATH, or
// $GOPATH/bin; the test skips (fails under CI) without it.
func Binary(t testing.TB) string {
	t.Helper()
	also := []string{os.Getenv(EnvBinary)}
	if home, err := os.UserHomeDir(); err == nil {
		also = append(also, filepath.Join(home, "go", "bin", "victoria-logs"))
	}
	bin, err := localserver.Lookup("victoria-logs", "go install github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@v1.52.2; .ci/victorialogs.sh", also...)
	if err != nil {
		testenv.Missing(t, err.Error(), ".ci/run must source .ci/victorialogs.sh")
	}
	return bin
}

// start runs victoria-logs with args on a free port until the test ends.
func start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin := Binary(t)
	addr, err := localserver.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &Server{URL: "http://" + addr, Addr: addr}
	args = append([]string{"-httpListenAddr=" + addr, "-storageDataPath=" + filepath.Join(dir, "data"), "-retentionPeriod=100y", "-loggerLevel=ERROR"}, args...)
	s.proc, err = localserver.Start(bin, args, filepath.Join(dir, "victoria-logs.log"), ready, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/health", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/health: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.proc.Stop() })
	return s
}

// Single starts a single-node server.
func Single(t testing.TB) *Server { return start(t) }

// Cluster starts two storage nodes and a front end (insert and select)
// over them; it returns the front end and the nodes.
func Cluster(t testing.TB) (front *Server, nodes []*Server) {
	t.Helper()
	a, b := start(t), start(t)
	front = start(t, "-storageNode="+a.Addr+","+b.Addr)
	return front, []*Server{a, b}
}

// Ingest posts JSON lines (one object each, time in "ts", message in "msg",
// stream fields streamFields) through s's /insert/jsonline with the
// Content-Type without which VictoriaLogs ingests nothing, then flushes so
// queries see them.
func Ingest(t testing.TB, s *Server, lines []string, streamFields ...string) {
	t.Helper()
	u := s.URL + "/insert/jsonline?_time_field=ts&_msg_field=msg&_stream_fields=" + strings.Join(streamFields, ",")
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader([]byte(strings.Join(lines, "\n")+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("ingest: %s", resp.Status)
	}
	Flush(t, s)
}

// Flush makes ingested rows searchable (/internal/force_flush).
func Flush(t testing.TB, s *Server) {
	t.Helper()
	resp, err := http.Get(s.URL + "/internal/force_flush")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
