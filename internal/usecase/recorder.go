package usecase

import (
	"context"
	"encoding/json"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// storeRecorder writes the harness's canonical audit into the run store.
type storeRecorder struct{ store *runstore.Store }

// RecordModelRound stores one round as sent and as received, every member
// of the harness's record.
func (r storeRecorder) RecordModelRound(ctx context.Context, runID string, m harness.ModelRound) error {
	if _, err := r.store.AppendModelRound(ctx, runID, m); err != nil {
		return err
	}
	return nil
}

// RecordInvocation stores one tool step, every member of the harness's
// record (runrecord.Invocation): its canonical input, the observation
// exactly as the model saw it, and the audit-only detail of a refused or
// failed call.
func (r storeRecorder) RecordInvocation(ctx context.Context, runID string, inv harness.Invocation) error {
	if len(inv.Input) > 0 && !json.Valid(inv.Input) {
		inv.Input = nil
	}
	if _, err := r.store.AppendToolInvocation(ctx, runID, inv); err != nil {
		return err
	}
	return nil
}
