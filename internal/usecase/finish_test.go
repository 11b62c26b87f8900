package usecase

import (
	"context"
	"testing"

	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// finish records the end the releaser took through RunContext.End; it never
// ends a run itself, so a decision for a run nobody ended is an error and
// the run stays RUNNING rather than being settled a third time.
func TestFinishRecordsTheEndItDoesNotTakeIt(t *testing.T) {
	d, _, _ := demoDeps(t, nil)
	ctx := context.Background()
	sessionID, err := d.resolveSession(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := d.openRun(ctx, sessionID, "why?", runrecord.IntentDiagnosis, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Release()
	dec := release.Decision{Outcome: runrecord.OutcomeFallback, StopReason: runrecord.StopNoConclusion, Answer: "## No conclusion\n"}
	if _, err := d.finish(rc, runrecord.IntentDiagnosis, dec); err == nil {
		t.Fatal("finish recorded a run nobody ended")
	}
	if lc, _ := rc.State(); lc != runrecord.Running {
		t.Fatalf("finish ended the run itself: %s", lc)
	}
	rc.End(dec.StopReason, dec.Outcome)
	out, err := d.finish(rc, runrecord.IntentDiagnosis, dec)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := d.Store.GetRun(ctx, rc.RunID())
	if err != nil {
		t.Fatal(err)
	}
	if out.ReleaseOutcome != runrecord.OutcomeFallback || stored.Lifecycle != runrecord.Completed {
		t.Fatalf("finished %s, stored lifecycle %s; want FALLBACK, COMPLETED", out.ReleaseOutcome, stored.Lifecycle)
	}
}
