package cmd

import (
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// The line under `runs show`'s "Tool invocations" heading says which of
// them the page holds when it is not all of them, and how to see more.
func TestInvocationPageNote(t *testing.T) {
	for _, tt := range []struct {
		shown, total, offset int
		want                 string
	}{
		{0, 0, 0, ""},
		{7, 7, 0, ""},
		{50, 80000, 0, "1–50 of 80000; --offset 50 shows the next ones"},
		{3, 80000, 100, "101–103 of 80000; --offset 103 shows the next ones"},
		{10, 80000, 79990, "79991–80000 of 80000"},
		{5, 7, 2, "3–7 of 7"},
		{0, 80000, 90000, "none from --offset 90000: the run has 80000"},
	} {
		d := &runstore.RunDetail{Invocations: make([]runrecord.Invocation, tt.shown), InvocationsTotal: tt.total, InvocationsOffset: tt.offset}
		if got := invocationPageNote(d); got != tt.want {
			t.Errorf("%d shown of %d from %d: %q, want %q", tt.shown, tt.total, tt.offset, got, tt.want)
		}
	}
}
