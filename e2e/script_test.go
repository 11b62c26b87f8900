package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// Usage the scripted model reports on each turn, like a real server.
const (
	scriptPromptTokens     = 2000
	scriptCompletionTokens = 60
)

// skill is a read_skill call (no envelope).
func skill(id, name string) ollamatest.Turn {
	return toolTurn(id, "read_skill", `{"name":"`+name+`"}`)
}

// ev is an evidence tool call in its envelope; prev names the EVIDENCE_FOUND
// call the model evaluates as GAINED ("" when none is pending), exactly as
// internal/demo/transcript.go chains them.
func ev(id, tool, prev, input string) ollamatest.Turn {
	args := `{"input":` + input + `}`
	if prev != "" {
		args = `{"previous_observation":{"tool_call_id":"` + prev + `","evaluation":"GAINED"},"input":` + input + `}`
	}
	return toolTurn(id, tool, args)
}

func toolTurn(id, tool, args string) ollamatest.Turn {
	return ollamatest.Turn{
		ToolCalls:       []ollamatest.ToolCall{{ID: id, Name: tool, Args: args}},
		PromptEvalCount: scriptPromptTokens, EvalCount: scriptCompletionTokens,
	}
}

// text is a turn whose whole content is s (a draft, a verdict).
func text(s string) ollamatest.Turn {
	return ollamatest.Turn{Content: []string{s}, PromptEvalCount: scriptPromptTokens, EvalCount: scriptCompletionTokens}
}

// verdict is the SemanticGuard's answer.
func verdict(v string) ollamatest.Turn {
	return text(`{"verdict":"` + v + `","reasons":["each finding checked against the observation it cites"]}`)
}

// draftText reads testdata/drafts/NAME.json as one compact JSON object, the
// way a model following the format schema answers.
func draftText(t testing.TB, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "drafts", name+".json"))
	if err != nil {
		t.Fatalf("read draft: %v", err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("draft %s is not JSON: %v", name, err)
	}
	return b.String()
}
