package doctor

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
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
	got := Model(context.Background(), &cfg)
	want := []struct {
		check  string
		status Status
	}{{"ollama", Fail}, {"model", Skip}, {"tool calling", Skip}}
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

// TestLogsNoFileFails: a log source whose globs match nothing fails with a
// hint naming the source.
func TestLogsNoFileFails(t *testing.T) {
	src := config.NewLogSource()
	src.Name, src.Paths = "app", []string{filepath.Join(t.TempDir(), "*.log")}
	cfg := &config.Config{File: "superbiz.toml", Logs: []config.LogSource{src}}
	got := Logs(context.Background(), cfg)
	if len(got) != 1 || got[0].Status != Fail || got[0].Check != "logs app" || !strings.Contains(got[0].Hint, "log source app in superbiz.toml") {
		t.Fatalf("got %+v, want one failed \"logs app\" with a hint naming the source and file", got)
	}
}

// TestResultJSON: the JSON of a result is check, ok, detail, hint; the
// status stays out of it (ok says pass/warn versus fail/skip).
func TestResultJSON(t *testing.T) {
	b, err := json.Marshal([]Result{Warned("c", "d", "h"), Skipped("s", "x")})
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"check":"c","ok":true,"detail":"d","hint":"h"},{"check":"s","ok":false,"detail":"x","hint":""}]`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// TestListedModelsBounded: a doctor line names at most maxListedModels
// models and says how many more there are.
func TestListedModelsBounded(t *testing.T) {
	names := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10"}
	if got, want := listedModels(names), "m1, m2, m3, m4, m5, m6, m7, m8 and 2 more"; got != want {
		t.Errorf("listedModels = %q, want %q", got, want)
	}
	if got := listedModels(names[:2]); got != "m1, m2" {
		t.Errorf("listedModels(2) = %q", got)
	}
	if got := listedModels(nil); got != "none" {
		t.Errorf("listedModels(nil) = %q", got)
	}
}
