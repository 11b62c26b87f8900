package timeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/integration"
)

// The canary log's hour: the window the call asks, and the hour before it
// the timeline reads as its baseline.
var canaryWindow = time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)

// PlantCanaries writes a JSON log whose hour before the window holds one
// known error, and whose window holds each line as an ERROR entry's
// message (new error patterns and a burst, whose summaries quote their
// template) and as the text of a start-up line (a restart's summary
// quotes it); the call builds the timeline of that window from a [[logs]]
// source reading it. The alerts it also reads plant their own canaries
// (internal/integration/alerts).
func (Source) PlantCanaries(dir string, lines []string) (integration.Planted, error) {
	var b strings.Builder
	entry := func(at time.Time, level, msg string) error {
		m, err := json.Marshal(msg)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, `{"ts":%q,"level":%q,"service":"canary","msg":%s}`+"\n", at.Format(time.RFC3339), level, m)
		return nil
	}
	for i := range 30 {
		if err := entry(canaryWindow.Add(-time.Hour+time.Duration(i)*2*time.Minute), "ERROR", "cache refresh failed for shard 7"); err != nil {
			return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
		}
	}
	for i, l := range lines {
		at := canaryWindow.Add(20*time.Minute + time.Duration(i)*time.Second)
		if err := entry(at, "INFO", "server started: "+l); err != nil {
			return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
		}
		for k := range 3 {
			if err := entry(at.Add(time.Duration(k)*time.Second), "ERROR", l); err != nil {
				return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
			}
		}
	}
	path := filepath.Join(dir, "timeline-canary.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	call, err := json.Marshal(map[string]string{"start": canaryWindow.Format(time.RFC3339), "end": canaryWindow.Add(time.Hour).Format(time.RFC3339)})
	if err != nil {
		return integration.Planted{}, fmt.Errorf("plant canaries: %w", err)
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[logs]]\nname = \"canary\"\npaths = [%q]\nformat = \"json\"\ntimezone = \"UTC\"\n", path),
		Calls:  []json.RawMessage{call},
	}, nil
}
