package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/frozen"
)

// metrics_sources names the sources metrics.om is served as, and needs one;
// without it, metrics.om is served as DefaultSource.
func TestReplayNames(t *testing.T) {
	dir := t.TempDir()
	named := map[string]any{ScenarioKey: []any{"main", "thanos"}}
	if _, err := (Source{}).Replay(frozen.Replay{Dir: dir, Scenario: named}); err == nil || !strings.Contains(err.Error(), ScenarioKey) {
		t.Errorf("without metrics.om: %v", err)
	}
	if sv, err := (Source{}).Replay(frozen.Replay{Dir: dir}); sv != nil || err != nil {
		t.Errorf("a pack without metrics.om serves %v (%v)", sv, err)
	}
	if err := os.WriteFile(filepath.Join(dir, PackFile), []byte("up 1 1\n# EOF\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		scenario map[string]any
		want     string
	}{{named, "main,thanos"}, {nil, DefaultSource}} {
		sv, err := Source{}.Replay(frozen.Replay{Dir: dir, Scenario: tt.scenario})
		if err != nil || sv == nil || strings.Join(sv.(served).names, ",") != tt.want {
			t.Errorf("served %v (%v), want %s", sv, err, tt.want)
		}
	}
	if _, err := (Source{}).Replay(frozen.Replay{Dir: dir, Scenario: map[string]any{ScenarioKey: "main"}}); err == nil {
		t.Error("a metrics_sources that is no list was taken")
	}
}
