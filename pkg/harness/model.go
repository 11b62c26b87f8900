package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// ModelRound is the canonical record of one model round, enough to replay it.
type ModelRound struct {
	Seq       int
	Purpose   runrecord.Purpose
	Request   model.Request
	Response  *model.Response
	StartedAt time.Time
	Duration  time.Duration
	ErrorKind string
}

// Recorder persists the canonical audit of a run; a failure to record fails
// the run closed.
type Recorder interface {
	RecordModelRound(ctx context.Context, runID string, r ModelRound) error
	RecordInvocation(ctx context.Context, runID string, inv Invocation) error
}

// ErrInterrupted wraps a model answer that arrived after the run was over.
var ErrInterrupted = errors.New("model answer arrived after the run ended")

// CallModel is the model interceptor: every round of every purpose goes
// through it. It reserves the call (keeping `reserved` calls free for later
// purposes), sends the request, records usage and the round, and makes sure
// a late answer cannot complete a cancelled or expired run.
func (rc *RunContext) CallModel(m model.ChatModel, purpose runrecord.Purpose, req model.Request, reserved int) (model.Response, error) {
	seq, err := rc.BeforeModelCall(reserved)
	if err != nil {
		return model.Response{}, err
	}
	// The answer may not be longer than what remains of the token budget.
	req.MaxOutputTokens = rc.TokensLeft()
	rc.emit(ModelRoundStarted{Meta: rc.meta(), Seq: seq, Purpose: purpose, WithTools: len(req.Tools) > 0})
	rc.budgetChanged()
	startedAt := rc.clock.Now()
	t0 := time.Now()
	resp, callErr := m.Chat(rc.ctx, req)
	round := ModelRound{Seq: seq, Purpose: purpose, Request: req, StartedAt: startedAt, Duration: time.Since(t0)}
	if callErr == nil {
		round.Response = &resp
		rc.RecordTokens(resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	// A run cancelled or expired while the model was answering is over,
	// whatever the answer was.
	if r := rc.Interrupted(); r != "" {
		round.ErrorKind = string(r)
		if err := rc.record(round); err != nil {
			return model.Response{}, err
		}
		return model.Response{}, fmt.Errorf("%w: %w", ErrInterrupted, &StopError{Reason: r})
	}
	if callErr != nil {
		round.ErrorKind = string(model.KindOf(callErr))
		if round.ErrorKind == "" {
			round.ErrorKind = string(model.ErrProtocol)
		}
	}
	if err := rc.record(round); err != nil {
		return model.Response{}, err
	}
	if callErr != nil {
		return model.Response{}, callErr
	}
	return resp, nil
}

// record persists a round and tells observers about it.
func (rc *RunContext) record(r ModelRound) error {
	ev := ModelRoundFinished{Meta: rc.meta(), Seq: r.Seq, Purpose: r.Purpose, Request: &r.Request, Response: r.Response, Duration: r.Duration, ErrorKind: r.ErrorKind}
	if r.Response != nil {
		ev.Usage = r.Response.Usage
	}
	if rc.recorder != nil {
		// The audit must be written even when the run's own context is done.
		if err := rc.recorder.RecordModelRound(context.WithoutCancel(rc.ctx), rc.runID, r); err != nil {
			err = fmt.Errorf("record model round %d: %w", r.Seq, err)
			rc.auditFailed(err)
			return err
		}
	}
	rc.emit(ev)
	rc.budgetChanged()
	return nil
}
