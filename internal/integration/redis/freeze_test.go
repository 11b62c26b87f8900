package redis

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// eval pack refuses a run whose evidence came from query_redis (a pack
// cannot hold it yet), naming it; a run without such a call, or whose
// call ended in error, is not refused.
func TestFreezeRefusesRedisEvidence(t *testing.T) {
	call := func(status tools.EvidenceStatus) runrecord.Invocation {
		return runrecord.Invocation{Tool: "query_redis", Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted, EvidenceStatus: status}
	}
	for _, tc := range []struct {
		calls  []runrecord.Invocation
		refuse bool
	}{
		{nil, false},
		{[]runrecord.Invocation{call(tools.StatusError)}, false},
		{[]runrecord.Invocation{call(tools.NoEvidence)}, true},
		{[]runrecord.Invocation{call(tools.EvidenceFound)}, true},
	} {
		p := &frozen.Pack{Run: &runstore.RunDetail{Invocations: tc.calls}}
		err := Source{}.Freeze(context.Background(), p)
		if refused := errors.Is(err, frozen.ErrRefused); refused != tc.refuse || tc.refuse && !strings.Contains(err.Error(), "query_redis") {
			t.Errorf("%d call(s): %v, want refused %v", len(tc.calls), err, tc.refuse)
		}
	}
}
