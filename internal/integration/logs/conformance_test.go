package logs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/conformance"
	"github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/internal/vlogstest"
)

// query_logs over a JSON log file as an application writes it.
func TestConformance(t *testing.T) {
	conformance.Run(t, logs.Source{}, func(t *testing.T) conformance.Fixture {
		dir := t.TempDir()
		path := filepath.Join(dir, "app.log")
		body := `{"ts":"2026-11-28T14:30:01Z","level":"ERROR","service":"checkout","msg":"payment gateway timeout conformance-marker-7f3"}` + "\n" +
			`{"ts":"2026-11-28T14:31:02Z","level":"INFO","service":"checkout","msg":"order placed"}` + "\n"
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return conformance.Fixture{
			Config:  fmt.Sprintf("[[logs]]\nname = \"app\"\npaths = [%q]\nformat = \"json\"\ntimezone = \"UTC\"\n", path),
			Call:    json.RawMessage(`{"source":"app","start":"2026-11-28T14:00:00Z","end":"2026-11-28T15:00:00Z"}`),
			Marker:  "conformance-marker-7f3",
			Empty:   json.RawMessage(`{"source":"app","start":"2026-11-28T10:00:00Z","end":"2026-11-28T11:00:00Z"}`),
			NameKey: "source",
		}
	})
}

// query_logs over a VictoriaLogs single node holding the same entries,
// ingested as a collector sends them (/insert/jsonline).
func TestConformanceVictoriaLogs(t *testing.T) {
	conformance.Run(t, logs.Source{}, func(t *testing.T) conformance.Fixture {
		s := vlogstest.Single(t)
		vlogstest.Ingest(t, s, []string{
			`{"ts":"2026-11-28T14:30:01Z","level":"ERROR","service":"checkout","msg":"payment gateway timeout conformance-marker-7f3"}`,
			`{"ts":"2026-11-28T14:31:02Z","level":"INFO","service":"checkout","msg":"order placed"}`,
		}, "service")
		return conformance.Fixture{
			Config:  fmt.Sprintf("[[logs]]\nname = \"store\"\nbackend = \"victorialogs\"\nurl = %q\nusername = \"reader\"\npassword_env = \"VL_PW\"\ntimezone = \"UTC\"\n", s.URL),
			Env:     map[string]string{"VL_PW": "unused-by-a-server-without-auth"},
			Call:    json.RawMessage(`{"source":"store","start":"2026-11-28T14:00:00Z","end":"2026-11-28T15:00:00Z"}`),
			Marker:  "conformance-marker-7f3",
			Empty:   json.RawMessage(`{"source":"store","start":"2026-11-28T10:00:00Z","end":"2026-11-28T11:00:00Z"}`),
			NameKey: "source",
		}
	})
}
