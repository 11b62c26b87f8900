package runstore

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// fillRuns writes n finished runs over 100 sessions with one invocation and
// one model round each, in one transaction, as a store of long use would hold.
func fillRuns(b *testing.B, s *Store, n int) {
	b.Helper()
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit it reports ErrTxDone
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, created_at, updated_at) VALUES (?, 0, 0)`, fmt.Sprintf("s_%03d", i)); err != nil {
			b.Fatal(err)
		}
	}
	result := `{"query":"q","conclusion":{"summary":"s","root_cause":"r","confidence":"HIGH"}}`
	for i := range n {
		id := fmt.Sprintf("r_%06d", i)
		if _, err := tx.ExecContext(ctx, `INSERT INTO runs (id, session_id, created_at, finished_at, query, intent, status,
			release_outcome, stop_reason, lifecycle, answer, published_result, model, model_calls, tool_calls, duration_ms)
			VALUES (?, ?, ?, ?, ?, 'DIAGNOSIS', 'SUCCESS', 'SUCCESS', 'COMPLETED', 'COMPLETED', ?, ?, 'qwen3:8b', 3, 2, 1000)`,
			id, fmt.Sprintf("s_%03d", i%100), unixMS(base.Add(time.Duration(i)*time.Second)), unixMS(base.Add(time.Duration(i)*time.Second+time.Second)),
			"order-service payment timeouts since 14:00, many 504s", "## Answer\n"+result, result); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tool_invocations (run_id, seq, tool_call_id, tool, kind, status, observation, started_at)
			VALUES (?, 1, 'call_1', 'query_logs', 'EVIDENCE', 'COMPLETED', ?, 0)`, id, `{"evidence_status":"NO_EVIDENCE"}`); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO model_rounds (run_id, seq, purpose, request, started_at)
			VALUES (?, 1, 'DIAGNOSIS', '{"messages":[]}', 0)`, id); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkListRuns measures `runs` over a store of 10,000 runs.
func BenchmarkListRuns(b *testing.B) {
	s, _ := openTemp(b)
	fillRuns(b, s, 10000)
	ctx := context.Background()
	cases := []struct {
		name string
		f    ListFilter
		want int
	}{
		{"default", ListFilter{}, DefaultListLimit},
		{"session", ListFilter{SessionID: "s_042"}, DefaultListLimit},
		{"all10000", ListFilter{Limit: 10000}, 10000},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				got, err := s.ListRuns(ctx, c.f)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != c.want {
					b.Fatalf("got %d runs, want %d", len(got), c.want)
				}
			}
		})
	}
}

// BenchmarkGetRun measures `runs show` and the PreviousTurn lookup on the
// same 10,000-run store.
func BenchmarkGetRun(b *testing.B) {
	s, _ := openTemp(b)
	fillRuns(b, s, 10000)
	ctx := context.Background()
	b.Run("GetRun", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.GetRun(ctx, "r_005000"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LastSafeDiagnosis", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := s.LastSafeDiagnosis(ctx, "s_042"); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}

// BenchmarkRunLifecycle measures one complete run's writes: create, one
// invocation, one model round, finish.
func BenchmarkRunLifecycle(b *testing.B) {
	s, _ := openTemp(b)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1"); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("r_%d", i)
		if err := s.CreateRun(ctx, NewRun{ID: id, SessionID: "s_1", Query: "q", Intent: runrecord.IntentDiagnosis}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.AppendToolInvocation(ctx, id, runrecord.Invocation{ToolCallID: "call_1", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: "COMPLETED",
			Observation: json.RawMessage(`{"evidence_status":"NO_EVIDENCE"}`)}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.AppendModelRound(ctx, id, runrecord.ModelRound{Purpose: runrecord.PurposeDiagnosis, Request: json.RawMessage(`{"messages":[]}`)}); err != nil {
			b.Fatal(err)
		}
		if err := s.FinishRun(ctx, id, Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback}); err != nil {
			b.Fatal(err)
		}
	}
}
