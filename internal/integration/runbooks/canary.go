package runbooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/superbiz/superbiz/internal/integration"
)

// PlantCanaries writes one runbook holding lines, in its front matter and
// its body.
func (Source) PlantCanaries(dir string, lines []string) (integration.Planted, error) {
	root := filepath.Join(dir, "runbooks")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	var b strings.Builder
	b.WriteString("---\ntitle: Canary credentials rotation\nowner_token: " + lines[0] + "\n---\n# Canary credentials rotation\n\n")
	for _, l := range lines {
		b.WriteString("Rotate canary credentials when this appears: " + l + "\n\n")
	}
	if err := os.WriteFile(filepath.Join(root, "canary.md"), []byte(b.String()), 0o600); err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	return integration.Planted{
		Config: fmt.Sprintf("[knowledge]\npaths = [%q]\n", root),
		Calls:  []json.RawMessage{json.RawMessage(`{"query":"canary credentials rotation"}`)},
	}, nil
}
