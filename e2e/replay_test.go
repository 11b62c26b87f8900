package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// replayOutput is `replay -o json` (docs/SPEC.md#replay--o-json).
type replayOutput struct {
	OriginalRunID string          `json:"original_run_id"`
	ReplayRunID   string          `json:"replay_run_id"`
	Identical     bool            `json:"identical"`
	Differences   []string        `json:"differences"`
	Result        json.RawMessage `json:"result"`
}

// assertReplay re-executes runID from its recording, in the same store, and
// requires the identical outcome (exit 0) and a new run linked to runID;
// extra flags (--live-tools) change what is re-executed live.
func assertReplay(t *testing.T, e *env, runID string, flags ...string) {
	t.Helper()
	t.Run("replay"+strings.Join(flags, ""), func(t *testing.T) {
		if runID == "" {
			t.Fatal("no run id to replay")
		}
		r := e.run(t, append([]string{"--demo", "replay", runID, "-o", "json"}, flags...)...)
		if r.code != 0 {
			t.Fatalf("replay exit %d, want 0 (identical)\n%s", r.code, r)
		}
		var out replayOutput
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("replay stdout is not one JSON object: %v\n%s", err, r)
		}
		if !out.Identical || len(out.Differences) != 0 {
			t.Errorf("replay of %s: identical %v, differences %q", runID, out.Identical, out.Differences)
		}
		if out.OriginalRunID != runID || !strings.HasPrefix(out.ReplayRunID, "r_") || out.ReplayRunID == runID {
			t.Errorf("original_run_id %q, replay_run_id %q; want %q and a new run", out.OriginalRunID, out.ReplayRunID, runID)
		}
		show := e.run(t, "runs", "show", out.ReplayRunID, "-o", "json")
		var stored struct {
			ReplayOf *string `json:"replay_of"`
		}
		if err := json.Unmarshal([]byte(show.stdout), &stored); err != nil || show.code != 0 {
			t.Fatalf("runs show of the replay: %v\n%s", err, show)
		}
		if stored.ReplayOf == nil || *stored.ReplayOf != runID {
			t.Errorf("the replay is stored with replay_of %v, want %q", stored.ReplayOf, runID)
		}
	})
}
