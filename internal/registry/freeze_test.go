package registry

import (
	"slices"
	"testing"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Every source that adds a tool freezes its calls (integration.Freezer): a
// new source without one fails here, and eval pack refuses its evidence,
// instead of writing a pack that silently leaves it out.
func TestEveryToolFreezes(t *testing.T) {
	var frozen []string
	for _, f := range Freezers() {
		frozen = append(frozen, f.Freezes()...)
	}
	for _, s := range Sources() {
		if s.Tool() == "" {
			continue
		}
		f, ok := s.(integration.Freezer)
		if !ok || !slices.Contains(f.Freezes(), s.Tool()) {
			t.Errorf("%s adds %s but does not freeze it (integration.Freezer)", s.Name(), s.Tool())
		}
	}
	if !slices.Contains(frozen, tools.ReadSkillTool) {
		t.Errorf("read_skill's playbooks are frozen by no integration: %v", frozen)
	}
}

// Unfrozen names the first evidence call no Freezer freezes; a call that
// ended in error or is no evidence holds nothing to freeze.
func TestUnfrozen(t *testing.T) {
	call := func(tool string, kind runrecord.InvocationKind, status tools.EvidenceStatus) runrecord.Invocation {
		return runrecord.Invocation{Tool: tool, Kind: kind, Status: runrecord.InvocationCompleted, EvidenceStatus: status}
	}
	for _, tt := range []struct {
		calls []runrecord.Invocation
		want  string
	}{
		{[]runrecord.Invocation{call("query_logs", runrecord.KindEvidence, tools.EvidenceFound)}, ""},
		{[]runrecord.Invocation{call("query_logs", runrecord.KindEvidence, tools.NoEvidence), call("query_traces", runrecord.KindEvidence, tools.NoEvidence)}, "query_traces"},
		{[]runrecord.Invocation{call("query_traces", runrecord.KindEvidence, tools.StatusError)}, ""},
		{[]runrecord.Invocation{call("query_traces", runrecord.KindGuidance, "")}, ""},
	} {
		if got := Unfrozen(tt.calls); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.calls, got, tt.want)
		}
	}
}
