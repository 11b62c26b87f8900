package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestAccessLogNumbers: through the built binary, `tools call query_logs`
// over the nginx, Envoy, HAProxy and Traefik fixtures gives each access
// entry its status as a JSON integer and its bytes and timings as JSON
// numbers (nginx's seconds and Envoy's milliseconds as written), and stats
// summarise a timing by status over them.
func TestAccessLogNumbers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	cases := []struct {
		file    string
		numbers map[string]float64
	}{
		{"nginx_timing.log", map[string]float64{"status": 504, "bytes": 160, "rt": 60.001, "urt": 60, "uct": 0.001}},
		{"envoy.log", map[string]float64{"status": 503, "bytes": 91, "duration_ms": 5003}},
		{"haproxy.log", map[string]float64{"status": 503, "bytes": 212}},
		{"traefik.log", map[string]float64{"status": 502, "bytes": 11, "duration_ms": 3003}},
	}
	// the syslog stamps of HAProxy's lines carry no year: it is the file's
	mtime := time.Date(2026, 3, 15, 16, 0, 0, 0, time.UTC)
	var cfg strings.Builder
	for i, c := range cases {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "logs", "formats", c.file))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(e.dir, c.file)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&cfg, "[[logs]]\nname = \"a%d\"\npaths = [%q]\ntimezone = \"UTC\"\n\n", i, p)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "superbiz.toml"), []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		in := fmt.Sprintf(`{"source":"a%d","start":"2026-03-14T14:01:00Z","end":"2026-03-14T14:02:00Z"}`, i)
		r := e.run(t, "tools", "call", "-o", "json", "query_logs", in)
		var obs struct {
			Result struct {
				Matched int `json:"matched"`
				Entries []struct {
					Fields map[string]any `json:"fields"`
				} `json:"entries"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil || obs.Result.Matched != 1 {
			t.Fatalf("%s: matched %d (%v)\n%s", c.file, obs.Result.Matched, err, r)
		}
		f := obs.Result.Entries[0].Fields
		for k, want := range c.numbers {
			if got, ok := f[k].(float64); !ok || got != want {
				t.Errorf("%s: fields.%s = %#v, want the JSON number %v", c.file, k, f[k], want)
			}
		}
		if !strings.Contains(r.stdout, fmt.Sprintf(`"status":%d,`, int(c.numbers["status"]))) && !strings.Contains(r.stdout, fmt.Sprintf(`"status":%d}`, int(c.numbers["status"]))) {
			t.Errorf("%s: status is no JSON integer:\n%s", c.file, r.stdout)
		}
	}
	r := e.run(t, "tools", "call", "-o", "json", "query_logs",
		`{"source":"a0","start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","stats":{"field":"rt","by":"status"}}`)
	if !strings.Contains(r.stdout, `{"key":"504","count":2,"min":60.001,"p50":60.001,"p95":60.002,"p99":60.002,"max":60.002,"avg":60.0015}`) {
		t.Errorf("stats of rt by status:\n%s", r)
	}
}
