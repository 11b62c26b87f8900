package runbooks_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/conformance"
	"github.com/superbiz/superbiz/internal/integration/runbooks"
)

// lookup_knowledge over a runbook folder: a word of the runbook finds it,
// a word of none finds nothing.
func TestConformance(t *testing.T) {
	conformance.Run(t, runbooks.Source{}, func(t *testing.T) conformance.Fixture {
		dir := t.TempDir()
		body := "# Payment gateway timeouts\n\n## Symptoms\n\nCheckout requests fail with gatewaytimeoutzq after 30 s.\n\n## Fix\n\nRaise the pool size (conformance-marker-7f3).\n"
		if err := os.WriteFile(filepath.Join(dir, "payments.md"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return conformance.Fixture{
			Config: fmt.Sprintf("[knowledge]\npaths = [%q]\n", dir),
			Call:   json.RawMessage(`{"query":"gatewaytimeoutzq"}`),
			Marker: "payments.md",
			Empty:  json.RawMessage(`{"query":"zzzunknownwordqq"}`),
		}
	})
}
