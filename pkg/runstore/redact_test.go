package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// plantedSecrets are secret values placed in every field a run writes.
var plantedSecrets = []string{"Qu3ryPw9", "ghp_1234567890abcdefghijABCDEFGHIJ123456", "S3lectPw7", "Dr4ftPw5", "R3asonPw3", "Answ3rPw1", "Err0rPw2", "Obs3rvPw4", "Summ4ryPw6", "Ch3ckPw8", "Resu1tPw0"}

// fileLeaks counts the planted secrets found in the raw bytes of the store
// file and its WAL and shared-memory files.
func fileLeaks(t *testing.T, path string, secrets []string) (leaked []string) {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatalf("read %s: %v", p, err)
		}
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatalf("no store bytes at %s", path)
	}
	for _, s := range secrets {
		if bytes.Contains(all, []byte(s)) {
			leaked = append(leaked, s)
		}
	}
	return leaked
}

func TestStoreRedactsEveryWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "why 504s? api_key=Qu3ryPw9 token ghp_1234567890abcdefghijABCDEFGHIJ123456", Intent: runrecord.IntentDiagnosis})
	if _, err := s.AppendModelRound(ctx, "r_1", runrecord.ModelRound{
		Purpose: runrecord.PurposeDiagnosis,
		Request: json.RawMessage(`{"messages":[{"role":"user","content":"{\"query\":\"api_key=Qu3ryPw9\"}"}]}`),
		Response: json.RawMessage(`{"message":{"role":"assistant","content":"{\"summary\":\"db password=Dr4ftPw5\"}",` +
			`"tool_calls":[{"id":"call_1","name":"query_mysql","arguments":{"input":{"sql":"SELECT 1 FROM t WHERE password = 'S3lectPw7'"}}}]}}`),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendToolInvocation(ctx, "r_1", runrecord.Invocation{
		ToolCallID: "call_1", Tool: "query_mysql", Kind: runrecord.KindEvidence, Status: "COMPLETED", EvidenceStatus: "EVIDENCE_FOUND",
		Input:       json.RawMessage(`{"sql":"select 1 from t where password = 'S3lectPw7'"}`),
		Summary:     "orders: select 1 from t where password = 'Summ4ryPw6'",
		Observation: json.RawMessage(`{"result":{"rows":[["secret: Obs3rvPw4"]]}}`),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendGuardReview(ctx, "r_1", GuardReview{Guard: runrecord.GuardSemantic, Verdict: "REJECT", Reasons: json.RawMessage(`["cites token=R3asonPw3"]`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, "r_1", Finish{
		Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, StopReason: "COMPLETED", Lifecycle: runrecord.Completed,
		Answer:          "rotate password=Answ3rPw1",
		PublishedResult: json.RawMessage(`{"conclusion":{"summary":"dsn app:Resu1tPw0@tcp(db)/x"}}`),
		Checks:          []runrecord.Check{{Tool: "query_mysql", Summary: "passwd=Ch3ckPw8"}},
		ErrorMessage:    "secret=Err0rPw2",
	}); err != nil {
		t.Fatal(err)
	}

	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	read, _ := json.Marshal(d)
	for _, sec := range plantedSecrets {
		if strings.Contains(string(read), sec) {
			t.Errorf("secret %q read back from the store: %s", sec, read)
		}
	}
	// The recorded documents stay valid JSON with their structure.
	var resp struct {
		Message struct {
			ToolCalls []struct {
				Arguments struct {
					Input struct{ SQL string } `json:"input"`
				} `json:"arguments"`
			} `json:"tool_calls"`
		} `json:"message"`
	}
	if err := json.Unmarshal(d.ModelRounds[0].Response, &resp); err != nil || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("stored response unreadable: %v %s", err, d.ModelRounds[0].Response)
	}
	if got := resp.Message.ToolCalls[0].Arguments.Input.SQL; got != "SELECT 1 FROM t WHERE password = '[REDACTED]'" {
		t.Errorf("stored tool call SQL = %q", got)
	}
	if ss, err := s.GetSession(ctx, "s_1"); err != nil || strings.Contains(ss.LastQuery, "Qu3ryPw9") {
		t.Errorf("session last query %q (%v)", ss.LastQuery, err)
	}

	open := fileLeaks(t, path, plantedSecrets)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	closed := fileLeaks(t, path, plantedSecrets)
	reliability.Record(t, reliability.SectionSecrets, "run store file (runstore unit, every field)", map[string]any{"planted": len(plantedSecrets), "leaked": len(open) + len(closed)})
	if len(open) > 0 || len(closed) > 0 {
		t.Fatalf("secrets in the store file: open %q, closed %q", open, closed)
	}
}
