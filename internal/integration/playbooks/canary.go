package playbooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/superbiz/superbiz/internal/integration"
)

// PlantCanaries writes one playbook (skills.paths/<name>/SKILL.md) holding
// lines in its description and body; read_skill reads it back.
func (Source) PlantCanaries(dir string, lines []string) (integration.Planted, error) {
	root := filepath.Join(dir, "skills")
	if err := os.MkdirAll(filepath.Join(root, "diagnose-canary"), 0o755); err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	var b strings.Builder
	b.WriteString("---\nname: diagnose-canary\ndescription: canary playbook\n---\n# Diagnose canary\n\n")
	for _, l := range lines {
		b.WriteString("- check " + l + "\n")
	}
	if err := os.WriteFile(filepath.Join(root, "diagnose-canary", "SKILL.md"), []byte(b.String()), 0o600); err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	return integration.Planted{
		Config: fmt.Sprintf("[skills]\npaths = [%q]\n", root),
		Tool:   "read_skill",
		Calls:  []json.RawMessage{json.RawMessage(`{"name":"diagnose-canary"}`)},
	}, nil
}
