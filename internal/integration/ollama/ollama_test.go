package ollama

import (
	"context"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/testenv"
)

// TestModelUnreachableSkipsLaterSteps: Ollama not answering is one failed
// line with the fix, and the model and tool-calling lines are skipped
// rather than failing again on the same cause.
func TestModelUnreachableSkipsLaterSteps(t *testing.T) {
	cfg := config.Defaults()
	host, err := config.ParseHost(testenv.ClosedURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model.Host = host
	got := Provider{}.Doctor(context.Background(), &cfg)
	want := []struct {
		check  string
		status doctor.Status
	}{{"ollama", doctor.Fail}, {"model", doctor.Skip}, {"tool calling", doctor.Skip}}
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Check != w.check || got[i].Status != w.status {
			t.Errorf("result %d = %s/%d, want %s/%d", i, got[i].Check, got[i].Status, w.check, w.status)
		}
	}
	if !strings.Contains(got[0].Hint, "ollama serve") {
		t.Errorf("hint %q does not say how to start Ollama", got[0].Hint)
	}
}
