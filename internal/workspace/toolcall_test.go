package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// TestVerdictMessages: the verdict of a direct tool call names the outcome
// (a stop signal's call is CANCELLED, whichever step the stop caught: issue
// 34 item 24 printed "query_logs was cancelled (STOP_REQUIRED)"), and its
// message passes the egress door with our words and the refusal's kept.
func TestVerdictMessages(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	const refusal = "statement refused (not_allowed): pg_proc holds function and view bodies, which can hold credentials; reading it is not allowed"
	tests := []struct {
		name string
		ctx  context.Context
		obs  string
		inv  harness.Invocation
		code int
		want string
	}{
		{"stopped before the backend ran", cancelled, `{"tool_call_id":"c1","tool":"query_logs","control":"STOP_REQUIRED"}`,
			harness.Invocation{Kind: runrecord.KindControl, Control: runrecord.ControlStop, Detail: "stop required: CANCELLED"},
			exitcode.Cancelled, "query_logs was cancelled (CANCELLED)"},
		{"stopped while the backend ran", cancelled, `{"tool_call_id":"c1","tool":"query_logs","evidence_status":"ERROR","error_code":"CANCELLED"}`,
			harness.Invocation{Kind: runrecord.KindEvidence},
			exitcode.Cancelled, "query_logs was cancelled (CANCELLED)"},
		{"refused", context.Background(), `{"tool_call_id":"c1","tool":"query_postgres","evidence_status":"ERROR","error_code":"NOT_ALLOWED"}`,
			harness.Invocation{Kind: runrecord.KindEvidence, Detail: refusal},
			exitcode.Usage, "query_postgres rejected the input (NOT_ALLOWED): " + refusal},
		{"failed with a secret in the detail", context.Background(), `{"tool_call_id":"c1","tool":"query_logs","evidence_status":"ERROR","error_code":"TIMEOUT"}`,
			harness.Invocation{Kind: runrecord.KindEvidence, Detail: "dial postgres://app:HunterTwoAlpaca9@db:5432/shop failed"},
			exitcode.Failed, "query_logs failed (TIMEOUT): dial postgres://app:" + egress.Marker + "@db:5432/shop failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h struct {
				Tool string `json:"tool"`
			}
			if err := json.Unmarshal([]byte(tt.obs), &h); err != nil {
				t.Fatal(err)
			}
			r := ToolCall{Tool: h.Tool, ToolCallOutput: usecase.ToolCallOutput{Observation: json.RawMessage(tt.obs), Invocation: tt.inv}}
			err := r.Verdict(tt.ctx)
			var ee *exitcode.Error
			if !errors.As(err, &ee) || ee.Code != tt.code {
				t.Fatalf("verdict %v, want exit %d", err, tt.code)
			}
			if got := egress.Error(err).String(); got != tt.want {
				t.Errorf("through the door:\n got %q\nwant %q", got, tt.want)
			}
			if strings.Contains(err.Error(), runrecord.ControlStop) {
				t.Errorf("the message names the control step: %q", err)
			}
		})
	}
}
