package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestLogsServiceIsTheSources: through the built binary, a Spring Boot 2
// log on a [[logs]] source with service = "checkout" answers a service
// filter "checkout" with its ERROR entries, coverage data: the logger
// (o.h.e.j.s.SqlExceptionHelper, c.s.checkout.web.CheckoutController) is
// the field logger, never the service, and the thread is the field thread.
func TestLogsServiceIsTheSources(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	data, err := os.ReadFile(filepath.Join("..", "testdata", "logs", "formats", "spring_boot2.log"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(e.dir, "spring.log")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 3, 15, 16, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	cfg := "[[logs]]\nname = \"app\"\npaths = [\"" + p + "\"]\ntimezone = \"UTC\"\nservice = \"checkout\"\n"
	if err := os.WriteFile(filepath.Join(e.dir, "superbiz.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "tools", "call", "-o", "json", "query_logs",
		`{"service":"checkout","level":"ERROR","start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"}`)
	var obs struct {
		Status string `json:"status"`
		Result struct {
			Matched  int    `json:"matched"`
			Coverage string `json:"coverage"`
			Entries  []struct {
				Service string            `json:"service"`
				Fields  map[string]string `json:"fields"`
			} `json:"entries"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if obs.Result.Matched != 2 || obs.Result.Coverage != "data" {
		t.Fatalf("service checkout, level ERROR: matched %d coverage %q, want 2 and data\n%s", obs.Result.Matched, obs.Result.Coverage, r)
	}
	for _, en := range obs.Result.Entries {
		if en.Service != "checkout" || en.Fields["logger"] == "" || en.Fields["thread"] == "" {
			t.Errorf("entry service %q fields %v: want the source's service, the logger and the thread as fields", en.Service, en.Fields)
		}
	}
}
