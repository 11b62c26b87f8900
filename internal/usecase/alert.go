package usecase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/tools"
)

// AlertCommand is how a chat message names a firing alert: "/alert REF".
const AlertCommand = "/alert"

// AlertRef returns the reference of a chat message "/alert REF" (the whole
// message: the command, blanks, the reference) and whether the message is
// one, so every chat front end routes it the same way.
func AlertRef(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), AlertCommand)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// FindAlert finds the firing alert a reference (name or fingerprint) names
// and says which of several same-named alerts it picked ("" otherwise); its
// errors are the front end's to word (a missing [alerts] url, an unknown
// alert, Alertmanager failing).
type FindAlert func(ctx context.Context, ref string) (alerts.Alert, string, error)

// AlertError is a chat message "/alert REF" whose alert could not be found
// or read: no run was stored, and Err is the finder's error.
type AlertError struct{ Err error }

func (e *AlertError) Error() string { return e.Err.Error() }

// Unwrap lets errors.Is/As see the finder's error.
func (e *AlertError) Unwrap() error { return e.Err }

// AlertRun is a diagnosis started from a firing alert: its query and the
// clock it runs with.
type AlertRun struct {
	Query string
	Clock time.Time
	// Note says which of several same-named alerts was picked, "" otherwise.
	Note string
	// Watch is the series the alert's rule compares, which the run's
	// build_timeline watches besides [[timeline.metrics]]; nil when it
	// cannot be read (no [[metrics]] source, no expression found).
	Watch *timeline.Metric
}

// NewAlertRun is the diagnosis of alert al at the real time now: the clock
// anchored to its start and the query bounded by limit (limits.query).
func NewAlertRun(al alerts.Alert, note string, now time.Time, limit int) AlertRun {
	clock := alerts.Clock(al, now)
	return AlertRun{Query: alerts.Query(al, clock, note, limit), Clock: clock, Note: note}
}

// WatchAlert gives the series the rule of alert al compares, for the
// run's build_timeline to watch besides [[timeline.metrics]]; ok is false
// when none can be read, why then says why for a person ("" when there is
// nothing to say).
type WatchAlert func(ctx context.Context, al alerts.Alert) (m timeline.Metric, why string, ok bool)

// ResolveAlert finds the firing alert ref names (d.FindAlert) and builds
// its diagnosis: the query bounded by limits.query, the clock anchored to
// the alert's start at d's now, and the series its rule compares
// (d.WatchAlert; when it cannot be read, Note says why). It is the one path
// of `diagnose --alert`, chat's "/alert REF" and MCP's diagnose; its
// errors are FindAlert's.
func (d *Deps) ResolveAlert(ctx context.Context, ref string) (AlertRun, error) {
	if d.FindAlert == nil {
		return AlertRun{}, errors.New("no Alertmanager is wired into this run")
	}
	al, note, err := d.FindAlert(ctx, ref)
	if err != nil {
		return AlertRun{}, err
	}
	clock := d.Clock
	if clock == nil {
		clock = harness.SystemClock{}
	}
	ar := NewAlertRun(al, note, clock.Now(), d.Limits.Query)
	if d.WatchAlert != nil {
		if m, why, ok := d.WatchAlert(ctx, al); ok {
			ar.Watch = &m
		} else if why != "" {
			ar.Note = strings.TrimSpace(ar.Note + "\n" + why)
		}
	}
	return ar, nil
}

// ForAlert is d set to run the diagnosis of ar: its clock anchored to the
// alert, and its build_timeline watching ar.Watch besides
// [[timeline.metrics]], as `timeline --alert` watches it.
func (d *Deps) ForAlert(ar AlertRun) (*Deps, error) {
	run := *d
	run.Clock = harness.FixedClock{T: ar.Clock}
	if ar.Watch != nil && d.Tools != nil {
		ts, err := watchAlert(d.Tools, *ar.Watch)
		if err != nil {
			return nil, err
		}
		run.Tools = ts
	}
	return &run, nil
}

// watchAlert is ts with its build_timeline watching m too; ts itself when
// it offers no build_timeline.
func watchAlert(ts *harness.Toolset, m timeline.Metric) (*harness.Toolset, error) {
	a, ok := ts.Adapter(timeline.ToolName)
	tt, isTool := a.(*timeline.Tool)
	if !ok || !isTool {
		return ts, nil
	}
	adapters := make([]tools.Adapter, 0, len(ts.Names()))
	for _, n := range ts.Names() {
		if n == timeline.ToolName {
			adapters = append(adapters, tt.WithAlertExpr(m))
		} else if a, ok := ts.Adapter(n); ok {
			adapters = append(adapters, a)
		}
	}
	out, err := harness.NewToolset(adapters, ts.Playbooks())
	if err != nil {
		return nil, fmt.Errorf("the alert's timeline: %w", err)
	}
	return out, nil
}

// DiagnoseAlert runs the DIAGNOSIS of a resolved alert: the same use case,
// limits and guards as any diagnosis, on the alert's query and clock, its
// build_timeline watching the alert's series (ForAlert).
func (d *Deps) DiagnoseAlert(ctx context.Context, ar AlertRun, req DiagnoseRequest) (Output, error) {
	run, err := d.ForAlert(ar)
	if err != nil {
		return Output{}, err
	}
	req.Query = ar.Query
	return run.Diagnose(ctx, req)
}

// chatAlert is chat's "/alert REF": a DIAGNOSIS from that firing alert, no
// router (the command says what it is), resolved as `diagnose --alert`
// resolves it (ResolveAlert); an alert that cannot be found is an
// *AlertError and stores no run. The output's Note is the alert's note.
func (d *Deps) chatAlert(ctx context.Context, req ChatRequest, ref string) (Output, error) {
	if d.FindAlert == nil {
		return Output{}, &AlertError{Err: errors.New("no Alertmanager is wired into this chat")}
	}
	ar, err := d.ResolveAlert(ctx, ref)
	if err != nil {
		return Output{}, &AlertError{Err: err}
	}
	out, err := d.DiagnoseAlert(ctx, ar, DiagnoseRequest{SessionID: req.SessionID, Continue: req.Continue, OnStart: req.OnStart})
	if ar.Note != "" {
		out.Note = &ar.Note
	}
	return out, err
}
