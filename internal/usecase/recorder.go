package usecase

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// storeRecorder writes the harness's canonical audit into the run store.
type storeRecorder struct{ store *runstore.Store }

// RecordModelRound stores one round as sent and as received.
func (r storeRecorder) RecordModelRound(ctx context.Context, runID string, m harness.ModelRound) error {
	req, err := json.Marshal(m.Request)
	if err != nil {
		return fmt.Errorf("encode model request: %w", err)
	}
	row := runstore.ModelRound{Purpose: m.Purpose, Request: req, DurationMS: m.Duration.Milliseconds(), ErrorKind: m.ErrorKind, StartedAt: m.StartedAt}
	if m.Response != nil {
		if row.Response, err = json.Marshal(m.Response); err != nil {
			return fmt.Errorf("encode model response: %w", err)
		}
		row.PromptTokens, row.CompletionTokens = m.Response.Usage.PromptTokens, m.Response.Usage.CompletionTokens
	}
	if _, err := r.store.AppendModelRound(ctx, runID, row); err != nil {
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
