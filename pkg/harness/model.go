package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// ModelRound is the canonical record of one model round, enough to replay
// it, declared in pkg/runrecord so that the harness writes and the run
// store keeps the same record: the request and response as JSON.
type ModelRound = runrecord.ModelRound

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
	round := ModelRound{Seq: seq, Purpose: purpose, StartedAt: startedAt, Duration: time.Since(t0)}
	var answered *model.Response
	if callErr == nil {
		answered = &resp
		rc.RecordTokens(resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	}
	// A run cancelled or expired while the model was answering is over,
	// whatever the answer was.
	if r := rc.Interrupted(); r != "" {
		round.ErrorKind = string(r)
		if err := rc.record(round, req, answered); err != nil {
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
	if err := rc.record(round, req, answered); err != nil {
		return model.Response{}, err
	}
	if callErr != nil {
		return model.Response{}, callErr
	}
	return resp, nil
}

// record persists a round, with the request as sent and the response as
// received (nil when the round failed), and tells observers about it.
func (rc *RunContext) record(r ModelRound, req model.Request, resp *model.Response) error {
	ev := ModelRoundFinished{Meta: rc.meta(), Seq: r.Seq, Purpose: r.Purpose, Request: &req, Response: resp, Duration: r.Duration, ErrorKind: r.ErrorKind}
	if resp != nil {
		ev.Usage = resp.Usage
		r.PromptTokens, r.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	if rc.recorder != nil {
		err := encodeRound(&r, req, resp)
		if err == nil {
			// The audit must be written even when the run's own context is done.
			err = rc.recorder.RecordModelRound(context.WithoutCancel(rc.ctx), rc.runID, r)
		}
		if err != nil {
			err = fmt.Errorf("record model round %d: %w", r.Seq, err)
			rc.auditFailed(err)
			return err
		}
	}
	rc.emit(ev)
	rc.budgetChanged()
	return nil
}

// encodeRound puts the request and response into the round as the JSON the
// audit keeps.
func encodeRound(r *ModelRound, req model.Request, resp *model.Response) error {
	var err error
	if r.Request, err = json.Marshal(req); err != nil {
		return fmt.Errorf("encode model request: %w", err)
	}
	if resp != nil {
		if r.Response, err = json.Marshal(resp); err != nil {
			return fmt.Errorf("encode model response: %w", err)
		}
	}
	return nil
}
