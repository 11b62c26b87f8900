package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cutter is an HTTP transport whose connections the test can cut, as a
// client process dying or a network dropping does: no cancellation is sent,
// the server only sees its connection end.
type cutter struct {
	http.Transport
	mu    sync.Mutex
	conns []net.Conn
}

func newCutter() *cutter {
	c := &cutter{}
	d := &net.Dialer{}
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err == nil {
			c.mu.Lock()
			c.conns = append(c.conns, conn)
			c.mu.Unlock()
		}
		return conn, err
	}
	return c
}

// cut closes every connection opened so far.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		_ = conn.Close()
	}
	c.conns = nil
}

// runStatus is the status and lifecycle of each stored run, by id.
func runStatus(t *testing.T, e *env) map[string][2]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, status, COALESCE(lifecycle, '') FROM runs`)
	if err != nil {
		return nil // the server has not created the store yet
	}
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var id, status, lifecycle string
		if err := rows.Scan(&id, &status, &lifecycle); err != nil {
			t.Fatalf("read runs: %v", err)
		}
		out[id] = [2]string{status, lifecycle}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read runs: %v", err)
	}
	return out
}

// awaitRun waits (bounded by ctx) until the store holds one run whose status
// is not RUNNING when ended is true, or is RUNNING otherwise; it returns that
// run's id, status and lifecycle.
func awaitRun(ctx context.Context, t *testing.T, e *env, ended bool, stderr fmt.Stringer) (string, string, string) {
	t.Helper()
	for {
		runs := runStatus(t, e)
		for id, st := range runs {
			if (st[0] != "RUNNING") == ended {
				return id, st[0], st[1]
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no run %s within the wait (runs %v)\n%s", map[bool]string{false: "RUNNING", true: "ended"}[ended], runs, stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// bigGzipLog writes dir/app.log.gz: gzip members of matching lines
// repeated past query_logs's 256 MiB decompression cap, a scan of seconds
// (a few hundred KiB on disk).
func bigGzipLog(t *testing.T, dir string) {
	t.Helper()
	line := "2026-11-28 14:00:00 ERROR payment-service - connection is not available, request timed out after 30000ms\n"
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(bytes.Repeat([]byte(line), (4<<20)/len(line))); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "app.log.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 72 { // 288 MiB of text
		if _, err := f.Write(member.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A client of streamable HTTP whose connection drops mid-call leaves no run
// RUNNING: a diagnose (its model round stalled for 30 s) and a query_logs
// call (a scan of seconds) are stored CANCELLED within seconds, because the
// call ends with the HTTP request that carried it.
func TestMCPStreamableHTTPDisconnect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"diagnose", "diagnose", map[string]any{"query": queryPayment}},
		{"query_logs", "query_logs", map[string]any{"source": "big", "contains": "connection", "start": "2026-11-28T13:00:00Z", "end": "2026-11-28T15:00:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			e := newEnv(t, srv.URL())
			args := []string{"--demo", "mcp", "--http", "127.0.0.1:0"}
			if tc.tool == "diagnose" {
				stallSecondRound(srv)
			} else {
				logDir := filepath.Join(e.dir, "logs")
				if err := os.MkdirAll(logDir, 0o755); err != nil {
					t.Fatal(err)
				}
				bigGzipLog(t, logDir)
				cfg := filepath.Join(e.dir, "superbiz.toml")
				if err := os.WriteFile(cfg, []byte("[[logs]]\nname = \"big\"\npaths = [\""+filepath.Join(logDir, "*.log.gz")+"\"]\nformat = \"text\"\ntimezone = \"UTC\"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				args = []string{"--config", cfg, "mcp", "--http", "127.0.0.1:0"}
			}
			url, stderr := httpServer(t, e, args...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tr := newCutter()
			client := mcp.NewClient(&mcp.Implementation{Name: "superbiz-e2e", Version: "1"}, nil)
			s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, nil)
			if err != nil {
				t.Fatalf("connect over HTTP: %v\n%s", err, stderr)
			}
			done := make(chan error, 1)
			go func() {
				_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				done <- err
			}()
			if tc.tool == "diagnose" {
				awaitChats(ctx, t, srv, 2, stderr)
			} else {
				awaitRun(ctx, t, e, false, stderr)
			}
			tr.cut()
			if err := <-done; err == nil {
				t.Errorf("the %s call whose connection was cut returned no error", tc.tool)
			}
			// A run left to its end would take 30 s (the stalled model round)
			// or end SUCCESS (the scan's 5 s cap); a cancelled one is stored
			// at once.
			wait, stop := context.WithTimeout(ctx, 15*time.Second)
			defer stop()
			id, status, lifecycle := awaitRun(wait, t, e, true, stderr)
			if status != "CANCELLED" || lifecycle != "CANCELLED" {
				t.Errorf("run %s stored %s/%s after the client disconnected, want CANCELLED/CANCELLED\n%s", id, status, lifecycle, stderr)
			}
			if strings.Contains(stderr.String(), "panic") {
				t.Errorf("the server panicked:\n%s", stderr)
			}
		})
	}
}
