package runstore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// openTemp opens a fresh store in a temp directory and closes it at the end.
func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, path
}

// mustRun creates a session (if needed) and a RUNNING run.
func mustRun(t testing.TB, s *Store, r NewRun) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.EnsureSession(ctx, r.SessionID); err != nil {
		t.Fatalf("EnsureSession(%s): %v", r.SessionID, err)
	}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatalf("CreateRun(%s): %v", r.ID, err)
	}
}

func TestOpenSetsUpFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "nested", "dir")
	path := filepath.Join(dir, "superbiz.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("parent directory not created: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("parent directory mode = %o, want 700", perm)
	}
	checks := []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"synchronous", "1"},
	}
	for _, c := range checks {
		var got string
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", c.pragma, err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %q, want %q", c.pragma, got, c.want)
		}
	}
	want, err := SchemaVersion()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := componentVersion(ctx, s.db, coreName); err != nil || got != want {
		t.Errorf("store schema version = %d, %v; want %d", got, err, want)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
}

func TestOpenRejectsBadPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tests := []struct {
		name, path, want string
	}{
		{"empty", "", "empty database path"},
		{"blank", "   ", "empty database path"},
		{"directory", dir, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, tt.path)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded, want error containing %q", tt.path, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open(%q) error = %v, want it to contain %q", tt.path, err, tt.want)
			}
			if strings.TrimSpace(tt.path) == "" && (!errors.Is(err, ErrNoPath) || strings.Contains(err.Error(), "--db")) {
				t.Errorf("Open(%q) error = %v, want ErrNoPath naming no flag", tt.path, err)
			}
		})
	}
}

func TestOpenPathWithURIDelimiters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "we?ird #dir%20x")
	path := filepath.Join(dir, "runs?mode=ro#frag.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database was not created at the exact path: %v", err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s2.Close()
	if _, err := s2.GetRun(ctx, "r_1"); err != nil {
		t.Fatalf("run lost on reopen: %v", err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "payment timeouts", Intent: runrecord.IntentDiagnosis})
	if err := s.FinishRun(ctx, "r_1", Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen existing file: %v", err)
	}
	defer s.Close()
	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != runrecord.RunStatusFailed || d.Query != "payment timeouts" {
		t.Errorf("after reopen: status %q query %q", d.Status, d.Query)
	}
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)

	if _, ok, err := s.LatestSessionID(ctx); err != nil || ok {
		t.Fatalf("LatestSessionID on empty store = ok %v, err %v; want none", ok, err)
	}
	if err := s.CreateSession(ctx, "s_a"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, "s_a"); !errors.Is(err, ErrExists) {
		t.Errorf("second CreateSession = %v, want ErrExists", err)
	}
	if created, err := s.EnsureSession(ctx, "s_a"); err != nil || created {
		t.Errorf("EnsureSession(existing) = %v, %v; want false, nil", created, err)
	}
	if created, err := s.EnsureSession(ctx, "s_b"); err != nil || !created {
		t.Errorf("EnsureSession(new) = %v, %v; want true, nil", created, err)
	}
	for _, bad := range []string{"", "has space", "tab\t", strings.Repeat("x", maxIDLen+1)} {
		if err := s.CreateSession(ctx, bad); err == nil {
			t.Errorf("CreateSession(%q) accepted a bad ID", bad)
		}
	}
	if _, err := s.GetSession(ctx, "s_missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetSession(missing) = %v, want ErrNotFound", err)
	}

	// A run in s_a makes it the latest session even though s_b was created later.
	later := time.Now().Add(time.Minute)
	if err := s.CreateRun(ctx, NewRun{ID: "r_1", SessionID: "s_a", Query: "why 504s", CreatedAt: later}); err != nil {
		t.Fatal(err)
	}
	if id, ok, err := s.LatestSessionID(ctx); err != nil || !ok || id != "s_a" {
		t.Errorf("LatestSessionID = %q, %v, %v; want s_a", id, ok, err)
	}
	// A newer session that holds only a replay never becomes the latest.
	if err := s.CreateSession(ctx, "s_replay"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, NewRun{ID: "r_replay", SessionID: "s_replay", Query: "why 504s", ReplayOf: "r_1", CreatedAt: later.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if id, ok, err := s.LatestSessionID(ctx); err != nil || !ok || id != "s_a" {
		t.Errorf("LatestSessionID after a replay = %q, %v, %v; want s_a", id, ok, err)
	}
	// Nor does a newer session of direct tool calls (an MCP client's).
	if err := s.CreateSession(ctx, "s_tools"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, NewRun{ID: "r_tool", SessionID: "s_tools", Query: "query_logs {}", Intent: runrecord.IntentToolCall, CreatedAt: later.Add(2 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if id, ok, err := s.LatestSessionID(ctx); err != nil || !ok || id != "s_a" {
		t.Errorf("LatestSessionID after a tool call = %q, %v, %v; want s_a", id, ok, err)
	}
	ss, err := s.GetSession(ctx, "s_a")
	if err != nil {
		t.Fatal(err)
	}
	if ss.LastIntent != "" || ss.LastQuery != "" {
		t.Errorf("before routing: last intent %q query %q, want empty", ss.LastIntent, ss.LastQuery)
	}
	if err := s.SetIntent(ctx, "r_1", runrecord.IntentKnowledgeQuery); err != nil {
		t.Fatal(err)
	}
	ss, err = s.GetSession(ctx, "s_a")
	if err != nil {
		t.Fatal(err)
	}
	if ss.LastIntent != runrecord.IntentKnowledgeQuery || ss.LastQuery != "why 504s" {
		t.Errorf("after routing: last intent %q query %q", ss.LastIntent, ss.LastQuery)
	}
	// diagnose creates runs with the intent already known.
	if err := s.CreateRun(ctx, NewRun{ID: "r_2", SessionID: "s_b", Query: "pool exhausted", Intent: runrecord.IntentDiagnosis}); err != nil {
		t.Fatal(err)
	}
	if ss, err := s.GetSession(ctx, "s_b"); err != nil || ss.LastIntent != runrecord.IntentDiagnosis || ss.LastQuery != "pool exhausted" {
		t.Errorf("GetSession(s_b) = %+v, %v", ss, err)
	}
}

func TestCreateRunErrors(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	tests := []struct {
		name    string
		run     NewRun
		want    string
		wantErr error
	}{
		{"missing session", NewRun{ID: "r_2", SessionID: "s_nope"}, "session", ErrNotFound},
		{"duplicate id", NewRun{ID: "r_1", SessionID: "s_1"}, "r_1", ErrExists},
		{"empty id", NewRun{SessionID: "s_1"}, "empty run ID", nil},
		{"bad intent", NewRun{ID: "r_3", SessionID: "s_1", Intent: "CHITCHAT"}, "invalid intent", nil},
		{"replay of missing", NewRun{ID: "r_6", SessionID: "s_1", ReplayOf: "r_ghost"}, "replayed run", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.CreateRun(ctx, tt.run)
			if err == nil {
				t.Fatal("CreateRun succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v is not %v", err, tt.wantErr)
			}
		})
	}
}

func TestRunRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	clock := time.Date(2025, 3, 14, 15, 9, 26, 535897000, time.FixedZone("CST", 8*3600))
	created := time.Date(2025, 3, 14, 7, 9, 27, 123000000, time.UTC)
	mustRun(t, s, NewRun{ID: "r_orig", SessionID: "s_1", Query: "orig"})
	if err := s.FinishRun(ctx, "r_orig", Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback}); err != nil {
		t.Fatal(err)
	}
	settings := &runrecord.Settings{Budget: config.Budget{MaxModelCalls: 8, MaxToolCalls: 6, Deadline: time.Minute}, Limits: &config.Limits{Query: 4096}, Language: "zh"}
	mustRun(t, s, NewRun{
		ID: "r_1", SessionID: "s_1", Query: "order-service 504s since 14:00", Intent: runrecord.IntentDiagnosis,
		Model: "qwen3:8b", Host: "http://127.0.0.1:11434", Clock: clock, Settings: settings,
		ReplayOf: "r_orig", CreatedAt: created,
	})

	started := created.Add(time.Second)
	invs := []runrecord.Invocation{
		{ToolCallID: "call_ab12cd34", Tool: "read_skill", Kind: runrecord.KindGuidance, Input: json.RawMessage(`{"name":"diagnose-payment-timeout"}`),
			Summary: "diagnose-payment-timeout", Status: "COMPLETED", StartedAt: started, Duration: time.Millisecond},
		{ToolCallID: "call_ef56gh78", Tool: "query_logs", Kind: runrecord.KindEvidence, Input: json.RawMessage(`{"service":"order","since":"1h"}`),
			Summary: "order ERROR since 1h", Status: "COMPLETED", EvidenceStatus: "EVIDENCE_FOUND",
			Observation: json.RawMessage(`{"tool_call_id":"call_ef56gh78","tool":"query_logs","evidence_status":"EVIDENCE_FOUND","result":{"matched":3}}`),
			StartedAt:   started.Add(time.Second), Duration: 42 * time.Millisecond,
			Evaluated: "call_ab12cd34", Evaluation: "GAINED", Tally: "3 matched", EmptyWindow: ""},
		{ToolCallID: "call_3", Tool: "query_logs", Kind: runrecord.KindControl, Status: "REFUSED", Control: runrecord.ControlDuplicate,
			ErrorCode: "", Observation: json.RawMessage(`{"tool_call_id":"call_3","tool":"query_logs","control":"DUPLICATE_CALL","original_tool_call_id":"call_ef56gh78"}`),
			StartedAt: started.Add(2 * time.Second), Detail: "same input as call_ef56gh78"},
	}
	for i, inv := range invs {
		seq, err := s.AppendToolInvocation(ctx, "r_1", inv)
		if err != nil {
			t.Fatalf("AppendToolInvocation %d: %v", i, err)
		}
		if seq != i+1 {
			t.Errorf("invocation %d got seq %d, want %d", i, seq, i+1)
		}
		invs[i].Seq = seq
		invs[i].StartedAt = invs[i].StartedAt.Truncate(time.Millisecond).UTC()
	}
	rounds := []runrecord.ModelRound{
		{Purpose: runrecord.PurposeDiagnosis, Request: json.RawMessage(`{"messages":[{"role":"user","content":"q"}]}`),
			Response: json.RawMessage(`{"message":{"role":"assistant","content":""}}`), PromptTokens: 900, CompletionTokens: 40, Duration: 1500 * time.Millisecond, StartedAt: started},
		{Purpose: runrecord.PurposeFinal, Request: json.RawMessage(`{"messages":[]}`), ErrorKind: "TIMEOUT", Duration: 180000 * time.Millisecond, StartedAt: started.Add(3 * time.Second)},
	}
	for i, r := range rounds {
		seq, err := s.AppendModelRound(ctx, "r_1", r)
		if err != nil {
			t.Fatalf("AppendModelRound %d: %v", i, err)
		}
		rounds[i].Seq = seq
		rounds[i].StartedAt = rounds[i].StartedAt.UTC()
	}
	guards := []GuardReview{
		{Guard: runrecord.GuardEvidence, Verdict: "PASS", CreatedAt: started},
		{Guard: runrecord.GuardSemantic, Verdict: "SUPPORTED", Reasons: json.RawMessage(`["finding 1 matches the log pattern"]`), CreatedAt: started},
	}
	for i, g := range guards {
		seq, err := s.AppendGuardReview(ctx, "r_1", g)
		if err != nil {
			t.Fatalf("AppendGuardReview %d: %v", i, err)
		}
		guards[i].Seq = seq
		guards[i].CreatedAt = guards[i].CreatedAt.UTC()
	}
	// Another run's audit must not leak into this one.
	mustRun(t, s, NewRun{ID: "r_other", SessionID: "s_1", Query: "other"})
	if _, err := s.AppendToolInvocation(ctx, "r_other", runrecord.Invocation{ToolCallID: "call_x", Tool: "query_mysql", Kind: runrecord.KindEvidence, Status: "COMPLETED"}); err != nil {
		t.Fatal(err)
	}

	finished := created.Add(10 * time.Second)
	fin := Finish{
		Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, StopReason: "COMPLETED", Lifecycle: runrecord.Completed,
		Answer:          "## Conclusion\nThe payment gateway is slow.",
		PublishedResult: json.RawMessage(`{"query":"order-service 504s since 14:00","conclusion":{"summary":"s","root_cause":"r","confidence":"HIGH"}}`),
		Checks:          []runrecord.Check{{Tool: "query_logs", EvidenceStatus: "EVIDENCE_FOUND", Summary: "order ERROR since 1h"}},
		Usage:           runrecord.Usage{ModelCalls: 3, ToolCalls: 2, PromptTokens: 2000, CompletionTokens: 300, Bytes: 9000, DurationMS: 10000},
		FinishedAt:      finished,
	}
	if err := s.FinishRun(ctx, "r_1", fin); err != nil {
		t.Fatal(err)
	}

	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	wantSummary := RunSummary{
		ID: "r_1", Number: 2 /* r_orig was stored first */, SessionID: "s_1", CreatedAt: created, FinishedAt: finished, Query: "order-service 504s since 14:00",
		Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, StopReason: "COMPLETED",
		Lifecycle: runrecord.Completed, Model: "qwen3:8b", Usage: fin.Usage, ReplayOf: "r_orig",
	}
	if d.RunSummary != wantSummary {
		t.Errorf("summary\n got %+v\nwant %+v", d.RunSummary, wantSummary)
	}
	if d.Answer != fin.Answer || string(d.PublishedResult) != string(fin.PublishedResult) {
		t.Errorf("answer/result differ: %q %s", d.Answer, d.PublishedResult)
	}
	if checks, err := d.DecodeChecks(); err != nil || !reflect.DeepEqual(checks, fin.Checks) {
		t.Errorf("checks = %+v, %v; want %+v", checks, err, fin.Checks)
	}
	if !d.Clock.Equal(clock) || d.Clock.Format(time.RFC3339Nano) != clock.Format(time.RFC3339Nano) {
		t.Errorf("clock = %s, want %s (offset kept)", d.Clock.Format(time.RFC3339Nano), clock.Format(time.RFC3339Nano))
	}
	if got, ok, err := d.DecodeSettings(); err != nil || !ok || !reflect.DeepEqual(got, *settings) || d.Host != "http://127.0.0.1:11434" {
		t.Errorf("settings %+v (%v, %v), want %+v; host %q", got, ok, err, *settings, d.Host)
	}
	if d.PID != os.Getpid() || d.Hostname != host {
		t.Errorf("pid %d hostname %q, want %d %q", d.PID, d.Hostname, os.Getpid(), host)
	}
	assertJSONEqual(t, "invocations", d.Invocations, invs)
	assertJSONEqual(t, "model rounds", d.ModelRounds, rounds)
	assertJSONEqual(t, "guard reviews", d.GuardReviews, guards)

	if _, err := s.GetRun(ctx, "r_nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetRun(missing) = %v, want ErrNotFound", err)
	}
}

// assertJSONEqual compares two values through their JSON form, which shows
// a readable difference for nested audit records.
func assertJSONEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("%s\n got %s\nwant %s", what, g, w)
	}
}

func TestFinishRunOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q", Intent: runrecord.IntentDiagnosis})
	first := Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, StopReason: "NO_CONCLUSION",
		Lifecycle: runrecord.Completed, Answer: "what was checked", Usage: runrecord.Usage{ModelCalls: 2, DurationMS: 5}}
	if err := s.FinishRun(ctx, "r_1", first); err != nil {
		t.Fatal(err)
	}
	second := Finish{Status: runrecord.RunStatusCancelled, ReleaseOutcome: runrecord.OutcomeCancelled, StopReason: "CANCELLED", Answer: "late"}
	err := s.FinishRun(ctx, "r_1", second)
	if !errors.Is(err, ErrAlreadyTerminal) {
		t.Fatalf("second FinishRun = %v, want ErrAlreadyTerminal", err)
	}
	if !strings.Contains(err.Error(), "it is SUCCESS") {
		t.Errorf("error %q does not say the run's status", err)
	}
	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != runrecord.RunStatusSuccess || d.ReleaseOutcome != runrecord.OutcomeFallback || d.StopReason != "NO_CONCLUSION" ||
		d.Answer != "what was checked" || d.Usage.ModelCalls != 2 {
		t.Errorf("first terminal values not kept: %+v", d.RunSummary)
	}
	// The audit is closed too.
	if _, err := s.AppendToolInvocation(ctx, "r_1", runrecord.Invocation{ToolCallID: "c", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: "COMPLETED"}); !errors.Is(err, ErrAlreadyTerminal) {
		t.Errorf("append invocation after finish = %v, want ErrAlreadyTerminal", err)
	}
	if _, err := s.AppendModelRound(ctx, "r_1", runrecord.ModelRound{Purpose: runrecord.PurposeFinal, Request: json.RawMessage(`{}`)}); !errors.Is(err, ErrAlreadyTerminal) {
		t.Errorf("append model round after finish = %v, want ErrAlreadyTerminal", err)
	}
	if _, err := s.AppendGuardReview(ctx, "r_1", GuardReview{Guard: runrecord.GuardEvidence, Verdict: "PASS"}); !errors.Is(err, ErrAlreadyTerminal) {
		t.Errorf("append guard review after finish = %v, want ErrAlreadyTerminal", err)
	}
	if err := s.SetIntent(ctx, "r_1", runrecord.IntentSystemChat); !errors.Is(err, ErrAlreadyTerminal) {
		t.Errorf("SetIntent after finish = %v, want ErrAlreadyTerminal", err)
	}
	// A missing run is told apart.
	if err := s.FinishRun(ctx, "r_ghost", first); !errors.Is(err, ErrNotFound) {
		t.Errorf("FinishRun(missing) = %v, want ErrNotFound", err)
	}
	if _, err := s.AppendModelRound(ctx, "r_ghost", runrecord.ModelRound{Purpose: runrecord.PurposeFinal, Request: json.RawMessage(`{}`)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("append to missing run = %v, want ErrNotFound", err)
	}
	if err := s.SetIntent(ctx, "r_ghost", runrecord.IntentDiagnosis); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetIntent(missing) = %v, want ErrNotFound", err)
	}
}

func TestFinishRunConcurrentExactlyOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.FinishRun(ctx, "r_1", Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed, ErrorMessage: string(rune('a' + i))})
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrAlreadyTerminal):
			t.Errorf("finisher %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d finishers succeeded, want exactly 1", won)
	}
}

func TestFinishValidation(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	result := json.RawMessage(`{"query":"q"}`)
	tests := []struct {
		name string
		f    Finish
		want string
	}{
		{"running is not terminal", Finish{Status: runrecord.RunStatusRunning}, "invalid status"},
		{"empty status", Finish{}, "invalid status"},
		{"fallback on failed run", Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFallback}, "release outcome for status FAILED"},
		{"success outcome on cancelled run", Finish{Status: runrecord.RunStatusCancelled, ReleaseOutcome: runrecord.OutcomeSuccess}, "release outcome for status CANCELLED"},
		{"result with fallback", Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, PublishedResult: result}, "needs release outcome SUCCESS"},
		{"result on failure", Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed, PublishedResult: result}, "needs release outcome SUCCESS"},
		{"corrupt result", Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, PublishedResult: json.RawMessage(`{"query":`)}, "published result is not valid JSON"},
		{"bad lifecycle", Finish{Status: runrecord.RunStatusSuccess, Lifecycle: "DONE"}, "invalid lifecycle"},
		{"negative usage", Finish{Status: runrecord.RunStatusSuccess, Usage: runrecord.Usage{Bytes: -1}}, "negative usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.FinishRun(ctx, "r_1", tt.f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("FinishRun = %v, want error containing %q", err, tt.want)
			}
		})
	}
	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != runrecord.RunStatusRunning {
		t.Errorf("a rejected finish changed the run: status %s", d.Status)
	}
}

func TestAppendValidation(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	ok := runrecord.Invocation{ToolCallID: "call_1", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: "COMPLETED"}
	tests := []struct {
		name string
		do   func() error
		want string
	}{
		{"invocation without id", func() error {
			inv := ok
			inv.ToolCallID = ""
			_, err := s.AppendToolInvocation(ctx, "r_1", inv)
			return err
		}, "tool call ID, tool and status are required"},
		{"invocation bad kind", func() error {
			inv := ok
			inv.Kind = "MAGIC"
			_, err := s.AppendToolInvocation(ctx, "r_1", inv)
			return err
		}, "invalid kind"},
		{"invocation bad control", func() error {
			inv := ok
			inv.Control = "RETRY"
			_, err := s.AppendToolInvocation(ctx, "r_1", inv)
			return err
		}, "invalid control"},
		{"invocation corrupt observation", func() error {
			inv := ok
			inv.Observation = json.RawMessage(`{"a":1}x`)
			_, err := s.AppendToolInvocation(ctx, "r_1", inv)
			return err
		}, "observation is not valid JSON"},
		{"round bad purpose", func() error {
			_, err := s.AppendModelRound(ctx, "r_1", runrecord.ModelRound{Purpose: "PLANNER", Request: json.RawMessage(`{}`)})
			return err
		}, "invalid purpose"},
		{"round without request", func() error {
			_, err := s.AppendModelRound(ctx, "r_1", runrecord.ModelRound{Purpose: runrecord.PurposeRouter})
			return err
		}, "request JSON is required"},
		{"guard bad name", func() error {
			_, err := s.AppendGuardReview(ctx, "r_1", GuardReview{Guard: "VIBES", Verdict: "OK"})
			return err
		}, "invalid guard"},
		{"guard reasons not array", func() error {
			_, err := s.AppendGuardReview(ctx, "r_1", GuardReview{Guard: runrecord.GuardSemantic, Verdict: "UNSUPPORTED", Reasons: json.RawMessage(`"no"`)})
			return err
		}, "reasons must be a JSON array"},
		{"set intent empty", func() error { return s.SetIntent(ctx, "r_1", "") }, "invalid intent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want error containing %q", err, tt.want)
			}
		})
	}
	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Invocations)+len(d.ModelRounds)+len(d.GuardReviews) != 0 {
		t.Errorf("rejected appends were stored: %+v", d)
	}
}

func TestListRunsOrderAndFilter(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// r_3 and r_4 share a millisecond: insertion order breaks the tie.
	runs := []struct {
		id, session string
		at          time.Duration
	}{
		{"r_1", "s_a", 0}, {"r_2", "s_b", time.Second}, {"r_3", "s_a", 2 * time.Second},
		{"r_4", "s_b", 2 * time.Second}, {"r_5", "s_a", 3 * time.Second},
	}
	for _, r := range runs {
		mustRun(t, s, NewRun{ID: r.id, SessionID: r.session, Query: "q " + r.id, CreatedAt: base.Add(r.at)})
	}
	if err := s.FinishRun(ctx, "r_3", Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed, ErrorCode: "MODEL_UNAVAILABLE"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter ListFilter
		want   []string
	}{
		{"all", ListFilter{}, []string{"r_5", "r_4", "r_3", "r_2", "r_1"}},
		{"limit", ListFilter{Limit: 2}, []string{"r_5", "r_4"}},
		{"session", ListFilter{SessionID: "s_a"}, []string{"r_5", "r_3", "r_1"}},
		{"session limit", ListFilter{SessionID: "s_b", Limit: 1}, []string{"r_4"}},
		{"unknown session", ListFilter{SessionID: "s_none"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ListRuns(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Errorf("ListRuns(%+v) = %v, want %v", tt.filter, ids, tt.want)
			}
		})
	}
	got, err := s.ListRuns(ctx, ListFilter{SessionID: "s_a"})
	if err != nil {
		t.Fatal(err)
	}
	if r := got[1]; r.Status != runrecord.RunStatusFailed || r.ErrorCode != "MODEL_UNAVAILABLE" || r.FinishedAt.IsZero() || r.Query != "q r_3" {
		t.Errorf("summary of r_3 = %+v", r)
	}
	if r := got[0]; r.Status != runrecord.RunStatusRunning || !r.FinishedAt.IsZero() {
		t.Errorf("summary of running r_5 = %+v", r)
	}
	if _, err := s.ListRuns(ctx, ListFilter{Limit: -1}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("ListRuns(limit -1) = %v, want a clear error", err)
	}
}

func TestLastSafeDiagnosis(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	result := func(q string) json.RawMessage { return json.RawMessage(`{"query":"` + q + `"}`) }
	type step struct {
		id, session, intent string
		f                   *Finish
	}
	success := func(q string) *Finish {
		return &Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, PublishedResult: result(q)}
	}
	steps := []step{
		{"r_old", "s_1", runrecord.IntentDiagnosis, success("old")},
		{"r_safe", "s_1", runrecord.IntentDiagnosis, success("safe")},
		{"r_fallback", "s_1", runrecord.IntentDiagnosis, &Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback}},
		{"r_failed", "s_1", runrecord.IntentDiagnosis, &Finish{Status: runrecord.RunStatusFailed, ReleaseOutcome: runrecord.OutcomeFailed}},
		{"r_cancelled", "s_1", runrecord.IntentDiagnosis, &Finish{Status: runrecord.RunStatusCancelled, ReleaseOutcome: runrecord.OutcomeCancelled}},
		{"r_knowledge", "s_1", runrecord.IntentKnowledgeQuery, success("knowledge")},
		{"r_chat", "s_1", runrecord.IntentSystemChat, &Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess}},
		{"r_running", "s_1", runrecord.IntentDiagnosis, nil},
		{"r_other_session", "s_2", runrecord.IntentDiagnosis, success("other")},
		{"r_empty_fallback", "s_3", runrecord.IntentDiagnosis, &Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback}},
	}
	for i, st := range steps {
		mustRun(t, s, NewRun{ID: st.id, SessionID: st.session, Query: "query " + st.id, Intent: st.intent, CreatedAt: base.Add(time.Duration(i) * time.Minute)})
		if st.f != nil {
			if err := s.FinishRun(ctx, st.id, *st.f); err != nil {
				t.Fatalf("finish %s: %v", st.id, err)
			}
		}
	}
	d, ok, err := s.LastSafeDiagnosis(ctx, "s_1")
	if err != nil || !ok {
		t.Fatalf("LastSafeDiagnosis(s_1) = ok %v, err %v", ok, err)
	}
	if d.RunID != "r_safe" || d.Query != "query r_safe" || string(d.PublishedResult) != string(result("safe")) || !d.CreatedAt.Equal(base.Add(time.Minute)) {
		t.Errorf("LastSafeDiagnosis(s_1) = %+v, want r_safe", d)
	}
	if d, ok, err := s.LastSafeDiagnosis(ctx, "s_2"); err != nil || !ok || d.RunID != "r_other_session" {
		t.Errorf("LastSafeDiagnosis(s_2) = %+v, %v, %v", d, ok, err)
	}
	for _, sess := range []string{"s_3", "s_unknown"} {
		if d, ok, err := s.LastSafeDiagnosis(ctx, sess); err != nil || ok {
			t.Errorf("LastSafeDiagnosis(%s) = %+v, %v, %v; want none", sess, d, ok, err)
		}
	}

	// A damaged newest qualifying record fails closed; it never revives r_old.
	for _, damaged := range []any{nil, "  \n"} {
		if _, err := s.db.ExecContext(ctx, `UPDATE runs SET published_result = ? WHERE id = 'r_safe'`, damaged); err != nil {
			t.Fatal(err)
		}
		if d, ok, err := s.LastSafeDiagnosis(ctx, "s_1"); err != nil || ok {
			t.Errorf("with published_result %q: got %+v, %v, %v; want none", damaged, d, ok, err)
		}
	}
	// Corrupt JSON is returned as stored: validating it is the caller's job.
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET published_result = '{"query":' WHERE id = 'r_safe'`); err != nil {
		t.Fatal(err)
	}
	if d, ok, err := s.LastSafeDiagnosis(ctx, "s_1"); err != nil || !ok || string(d.PublishedResult) != `{"query":` {
		t.Errorf("corrupt result: got %+v, %v, %v", d, ok, err)
	}
}

func TestReadsDoNotTakeTheWriteLock(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q", Intent: runrecord.IntentDiagnosis})
	// Another writer (here a transaction on the shared pool) holds the lock;
	// `runs`, `runs show` and the PreviousTurn lookup must still answer
	// instead of waiting out the busy timeout and failing.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }() // the test only holds the lock
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET last_query = 'held' WHERE id = 's_1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetRun(ctx, "r_1"); err != nil {
		t.Errorf("GetRun under a held write lock: %v", err)
	}
	if runs, err := s.ListRuns(ctx, ListFilter{}); err != nil || len(runs) != 1 {
		t.Errorf("ListRuns under a held write lock: %d runs, %v", len(runs), err)
	}
	if _, _, err := s.LastSafeDiagnosis(ctx, "s_1"); err != nil {
		t.Errorf("LastSafeDiagnosis under a held write lock: %v", err)
	}
	if ss, err := s.GetSession(ctx, "s_1"); err != nil || ss.LastQuery == "held" {
		t.Errorf("GetSession under a held write lock = %+v, %v (must not see uncommitted data)", ss, err)
	}
}

// TestAuditRecordsRoundTrip: the store keeps every member of the audit
// records. Each member of runrecord.Invocation, ModelRound and GuardReview is
// set to a value of its own (found by reflection, so a member added
// without its column fails here), stored, and read back equal.
func TestAuditRecordsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	var inv runrecord.Invocation
	fillMembers(t, &inv, map[string]any{"Kind": runrecord.KindControl, "Control": runrecord.ControlRepair})
	if _, err := s.AppendToolInvocation(ctx, "r_1", inv); err != nil {
		t.Fatal(err)
	}
	var round runrecord.ModelRound
	fillMembers(t, &round, map[string]any{"Purpose": runrecord.PurposeRouter})
	if _, err := s.AppendModelRound(ctx, "r_1", round); err != nil {
		t.Fatal(err)
	}
	var review runrecord.GuardReview
	fillMembers(t, &review, map[string]any{"Guard": runrecord.GuardSemantic, "Reasons": json.RawMessage(`["member Reasons"]`)})
	if _, err := s.AppendGuardReview(ctx, "r_1", review); err != nil {
		t.Fatal(err)
	}
	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Invocations) != 1 || len(d.ModelRounds) != 1 || len(d.GuardReviews) != 1 {
		t.Fatalf("%d invocations, %d model rounds and %d guard reviews read back, want 1 each", len(d.Invocations), len(d.ModelRounds), len(d.GuardReviews))
	}
	sameMembers(t, inv, d.Invocations[0])
	sameMembers(t, round, d.ModelRounds[0])
	sameMembers(t, review, d.GuardReviews[0])
}

// fillMembers sets every member of the struct *p to a value of its own:
// fixed gives some by name, Seq is 1 (the store assigns it), a JSON member
// is an object naming the member, a time is at a millisecond, a duration
// is whole milliseconds (what the store keeps) and a string names its
// member.
func fillMembers(t *testing.T, p any, fixed map[string]any) {
	t.Helper()
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch w, ok := fixed[name]; {
		case ok:
			f.Set(reflect.ValueOf(w))
		case name == "Seq":
			f.SetInt(1)
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			f.SetBytes([]byte(`{"member":"` + name + `"}`))
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.UnixMilli(1_700_000_000_123).UTC()))
		case f.Type() == reflect.TypeFor[time.Duration]():
			f.SetInt(int64(1234 * time.Millisecond))
		case f.Kind() == reflect.String:
			f.SetString("value of " + name)
		case f.Kind() == reflect.Int:
			f.SetInt(int64(100 + i))
		default:
			t.Fatalf("%T member %s (%s): teach this test a value for it", p, name, f.Type())
		}
	}
}

// sameMembers reports each member of the record read back that differs
// from the one stored.
func sameMembers[T any](t *testing.T, stored, read T) {
	t.Helper()
	w, g := reflect.ValueOf(stored), reflect.ValueOf(read)
	for i := range w.NumField() {
		if a, b := w.Field(i).Interface(), g.Field(i).Interface(); !reflect.DeepEqual(a, b) {
			t.Errorf("%T member %s: stored %v, read back %v", stored, w.Type().Field(i).Name, a, b)
		}
	}
}
