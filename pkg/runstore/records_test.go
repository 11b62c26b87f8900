package runstore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Stored documents decode into the store's own types: current records,
// records from before a field existed, NULL, and damaged documents whose
// error names the document.
func TestDecodeStoredRecords(t *testing.T) {
	full := runrecord.Settings{Budget: config.Budget{MaxModelCalls: 8, MaxToolCalls: 6, MaxTokens: 60000, MaxRunBytes: 262144, Deadline: 5 * time.Minute, MaxNoGain: 2},
		Limits: &config.Limits{Query: 4096, PreviousTurn: 8192, Input: 12288, Draft: 16384, Observation: 8192}, Language: "zh"}
	for _, tt := range []struct {
		name     string
		d        RunDetail
		settings *runrecord.Settings // nil: none stored
		checks   []runrecord.Check
		wantErr  string
	}{
		{name: "NULL columns"},
		{
			name: "current record",
			d: RunDetail{
				Settings: json.RawMessage(`{"max_model_calls":8,"max_tool_calls":6,"max_tokens":60000,"max_run_bytes":262144,"deadline":300000000000,"max_no_gain":2,"limits":{"query":4096,"previous_turn":8192,"input":12288,"draft":16384,"observation":8192},"language":"zh"}`),
				Checks:   json.RawMessage(`[{"tool":"query_mysql","evidence_status":"ERROR","summary":"refused (NOT_READ_ONLY)"}]`),
			},
			settings: &full,
			checks:   []runrecord.Check{{Tool: "query_mysql", EvidenceStatus: "ERROR", Summary: "refused (NOT_READ_ONLY)"}},
		},
		{
			name:     "record from before limits, language and folded error codes",
			d:        RunDetail{Settings: json.RawMessage(`{"max_model_calls":3}`), Checks: json.RawMessage(`[{"tool":"query_logs","evidence_status":"ERROR","error_code":"TIMEOUT","summary":"s"}]`)},
			settings: &runrecord.Settings{Budget: config.Budget{MaxModelCalls: 3}},
			checks:   []runrecord.Check{{Tool: "query_logs", EvidenceStatus: "ERROR", ErrorCode: "TIMEOUT", Summary: "s"}},
		},
		{name: "damaged settings", d: RunDetail{Settings: json.RawMessage(`{"max_model_calls":"eight"}`)}, wantErr: "stored settings are unreadable"},
		{name: "damaged checks", d: RunDetail{Checks: json.RawMessage(`{not json`)}, wantErr: "stored checks are unreadable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ok, err := tt.d.DecodeSettings()
			if err == nil {
				var checks []runrecord.Check
				checks, err = tt.d.DecodeChecks()
				if err == nil && !reflect.DeepEqual(checks, tt.checks) {
					t.Errorf("checks = %+v, want %+v", checks, tt.checks)
				}
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tt.settings != nil) || (ok && !reflect.DeepEqual(s, *tt.settings)) {
				t.Errorf("settings = %+v (ok %v), want %+v", s, ok, tt.settings)
			}
		})
	}
	// What the store writes reads back as the same value.
	b, err := settingsJSON(&full)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok, err := (&RunDetail{Settings: b}).DecodeSettings(); err != nil || !ok || !reflect.DeepEqual(s, full) {
		t.Errorf("round trip: %+v %v %v", s, ok, err)
	}
	if b, err := settingsJSON(nil); b != nil || err != nil {
		t.Errorf("nil settings encode to %s, %v; want NULL", b, err)
	}

	r, ok, err := (&RunDetail{PublishedResult: json.RawMessage(`{"conclusion":{"summary":"s","confidence":"HIGH"},"findings":[{},{}],"knowledge_refs":[{}]}`)}).DecodeResultSummary()
	if err != nil || !ok || r.Conclusion == nil || r.Conclusion.Confidence != "HIGH" || len(r.Findings) != 2 || len(r.KnowledgeRefs) != 1 {
		t.Errorf("result summary = %+v, %v, %v", r, ok, err)
	}
	if _, ok, err := (&RunDetail{}).DecodeResultSummary(); ok || err != nil {
		t.Errorf("no result: ok %v, err %v", ok, err)
	}
	if _, _, err := (&RunDetail{PublishedResult: json.RawMessage(`[1]`)}).DecodeResultSummary(); err == nil || !strings.Contains(err.Error(), "stored result is unreadable") {
		t.Errorf("damaged result: %v", err)
	}
	if reasons, err := (GuardReview{Reasons: json.RawMessage(`["a","b"]`)}).DecodeReasons(); err != nil || !reflect.DeepEqual(reasons, []string{"a", "b"}) {
		t.Errorf("reasons = %q, %v", reasons, err)
	}
	if _, err := (GuardReview{Reasons: json.RawMessage(`"one"`)}).DecodeReasons(); err == nil || !strings.Contains(err.Error(), "stored reasons are unreadable") {
		t.Errorf("damaged reasons: %v", err)
	}
}
