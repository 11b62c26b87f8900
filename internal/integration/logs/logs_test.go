package logs

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
)

// TestLogsNoFileFails: a log source whose globs match nothing fails with a
// hint naming the source.
func TestLogsNoFileFails(t *testing.T) {
	src := NewEntry()
	src.Name, src.Paths = "app", []string{filepath.Join(t.TempDir(), "*.log")}
	cfg := configured(src)
	got := Source{}.Doctor(context.Background(), cfg, integration.Env{})
	if len(got) != 1 || got[0].Status != doctor.Fail || got[0].Check != "logs app" || !strings.Contains(got[0].Hint, "log source app in superbiz.toml") {
		t.Fatalf("got %+v, want one failed \"logs app\" with a hint naming the source and file", got)
	}
}
