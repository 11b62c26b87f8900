package runstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// GetRunPage reads one page of a run's invocations in Seq order with the
// run's total; GetRun reads them all; a page out of bounds is refused.
func TestGetRunPage(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "q"})
	for i := range 7 {
		if _, err := s.AppendToolInvocation(ctx, "r_1", runrecord.Invocation{ToolCallID: fmt.Sprintf("call_%d", i+1), Tool: "query_logs", Kind: runrecord.KindEvidence, Status: "COMPLETED"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		page InvocationPage
		seqs string
	}{
		{InvocationPage{Offset: 0, Limit: 3}, "1,2,3"},
		{InvocationPage{Offset: 2, Limit: 3}, "3,4,5"},
		{InvocationPage{Offset: 6, Limit: 3}, "7"},
		{InvocationPage{Offset: 7, Limit: 3}, ""},
		{InvocationPage{Offset: 0, Limit: MaxInvocationPage}, "1,2,3,4,5,6,7"},
	} {
		d, err := s.GetRunPage(ctx, "r_1", tt.page)
		if err != nil {
			t.Fatalf("%+v: %v", tt.page, err)
		}
		got := ""
		for i, inv := range d.Invocations {
			if i > 0 {
				got += ","
			}
			got += fmt.Sprint(inv.Seq)
		}
		if got != tt.seqs || d.InvocationsTotal != 7 || d.InvocationsOffset != tt.page.Offset {
			t.Errorf("%+v: seqs %q, total %d, offset %d; want %q, 7, %d", tt.page, got, d.InvocationsTotal, d.InvocationsOffset, tt.seqs, tt.page.Offset)
		}
	}
	d, err := s.GetRun(ctx, "r_1")
	if err != nil || len(d.Invocations) != 7 || d.InvocationsTotal != 7 || d.InvocationsOffset != 0 {
		t.Errorf("GetRun: %d invocations, total %d, offset %d (%v); want all 7", len(d.Invocations), d.InvocationsTotal, d.InvocationsOffset, err)
	}
	for _, bad := range []InvocationPage{{Offset: -1, Limit: 1}, {Limit: 0}, {Limit: MaxInvocationPage + 1}} {
		if _, err := s.GetRunPage(ctx, "r_1", bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
