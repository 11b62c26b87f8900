package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools/call build_timeline with a progress token, through the SDK client
// speaking the protocol to `superbiz mcp` (the MCP Inspector CLI shows no
// notification): one notifications/progress per detector finished, its
// progress counting them up to the total the call gives (the coverage
// lines of its result), its message saying what the detector read and
// found, masked (no secret planted in the workspace reaches the client).
func TestMCPBuildTimelineProgress(t *testing.T) {
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	frozenWorkspace(t, e) // the demo's logs as a workspace of its own, secrets planted
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	s, stderr := mcpSession(t, e, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}}, "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	params := &mcp.CallToolParams{Name: "build_timeline", Arguments: map[string]any{"since": "2h"}}
	params.SetProgressToken("tl-1")
	res, err := s.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("build_timeline: %v %s\nstderr:\n%s", err, resultText(res), stderr)
	}
	var obs struct {
		Result struct {
			Coverage []struct{ Detector, Source string } `json:"coverage"`
		} `json:"result"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &obs); err != nil || len(obs.Result.Coverage) == 0 {
		t.Fatalf("build_timeline result: %v %s", err, raw)
	}
	// the SDK client may run the last notification's handler after the
	// call's answer: wait for it a moment
	want := len(obs.Result.Coverage)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= want {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	notes := slices.Clone(got)
	mu.Unlock()
	if len(notes) != want {
		t.Fatalf("%d progress notifications, want one per detector (%d): %+v", len(notes), want, notes)
	}
	for _, n := range notes {
		t.Logf("%v/%v %s", n.Progress, n.Total, n.Message)
	}
	for i, n := range notes {
		c := obs.Result.Coverage[i]
		if n.ProgressToken != "tl-1" || n.Progress != float64(i+1) || n.Total != float64(want) || !strings.HasPrefix(n.Message, c.Detector+" on "+c.Source+": ") {
			t.Errorf("notification %d: %+v; want token tl-1, %d of %d, %q", i+1, n, i+1, want, c.Detector+" on "+c.Source+": …")
		}
		for _, secret := range plantedSecrets {
			if strings.Contains(n.Message, secret) {
				t.Errorf("notification %d carries the planted secret %q: %q", i+1, secret, n.Message)
			}
		}
	}
	if !slices.ContainsFunc(notes, func(n *mcp.ProgressNotificationParams) bool {
		return strings.Contains(n.Message, " event") && strings.Contains(n.Message, ", first ")
	}) {
		t.Errorf("no notification says what its detector found: %+v", notes)
	}
}
