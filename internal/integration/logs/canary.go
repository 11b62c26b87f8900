package logs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/superbiz/superbiz/internal/integration"
)

// PlantCanaries writes lines into a JSON log file, one entry each: a line
// that is a JSON object becomes the entry's own members (a secret in a
// field), any other line its message.
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
	return integration.Planted{
		Config: fmt.Sprintf("[[logs]]\nname = \"canary\"\npaths = [%q]\nformat = \"json\"\ntimezone = \"UTC\"\n", path),
		Calls:  []json.RawMessage{json.RawMessage(`{"start":"2026-11-28T14:00:00Z","end":"2026-11-28T15:00:00Z","limit":50}`)},
	}, nil
}
