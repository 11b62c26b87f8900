package workspace

import (
	"context"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/model"
)

// Diagnosis is what to diagnose: a question, or a firing alert.
type Diagnosis struct {
	Query string
	// Alert names the firing alert to diagnose when FromAlert (its name or
	// fingerprint); its query replaces Query.
	Alert     string
	FromAlert bool
	// Pace is how long each scripted demo round waits (0: none).
	Pace time.Duration
}

// Prepared is a diagnosis ready to run: the use case's deps, the query and
// the note to show with the answer ("" for none).
type Prepared struct {
	Deps  *usecase.Deps
	Query string
	Note  string
}

// PrepareDiagnosis readies one diagnosis the way `superbiz diagnose` runs
// it, for the command and the MCP diagnose tool alike: a firing alert
// resolved to its query and clock (its note through Env.Warn), the demo
// transcript when --demo asks the demo question and no model answers (its
// note returned; its rounds paced by Pace), and the use case's deps.
func (w *Workspace) PrepareDiagnosis(ctx context.Context, in Diagnosis) (Prepared, error) {
	d := w.Deps()
	query := in.Query
	var alert usecase.AlertRun
	if in.FromAlert {
		var err error
		if alert, err = d.ResolveAlert(ctx, in.Alert); err != nil {
			return Prepared{}, err
		}
		query = alert.Query
		if alert.Note != "" {
			w.env.Warn(alert.Note)
		}
	}
	note := ""
	if w.Demo && query == demo.Query {
		if why := w.ModelUnusable(ctx); why != "" {
			note = fmt.Sprintf("model: %s (%s)", demo.TranscriptNote, why)
			d.Model, d.ModelName, d.Provider = replay.NewPaced(demo.Transcript(), in.Pace), demo.TranscriptNote, demo.Provider
			d.Note = note
		}
	}
	if in.FromAlert {
		var err error
		if d, err = d.ForAlert(alert); err != nil {
			return Prepared{}, err
		}
	}
	return Prepared{Deps: d, Query: query, Note: note}, nil
}

// ModelUnusable says briefly why no model can answer (the server is not
// reachable, or it lacks the configured model), or "" when one can.
func (w *Workspace) ModelUnusable(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ok, err := w.Model.HasModel(ctx)
	switch {
	case err != nil:
		return "no model reachable at " + w.Config.Model.Endpoint()
	case !ok:
		return fmt.Sprintf("model %s is not pulled at %s", w.Config.Model.Name, w.Config.Model.Endpoint())
	}
	return ""
}

// RunVerdict is the exit (exitcode.OfRun) of a finished run with the
// message a person can act on; nil for SUCCESS.
func RunVerdict(out usecase.Output, cfg *config.Config) error {
	code := exitcode.OfRun(out)
	msg := "the run failed"
	if out.Error != nil && out.Error.Message != "" {
		msg = out.Error.Message
	}
	switch code {
	case exitcode.OK:
		return nil
	case exitcode.Fallback:
		return &exitcode.Error{Code: code}
	case exitcode.Cancelled:
		return exitcode.Cancel("the run")
	case exitcode.Usage:
		return &exitcode.Error{Code: code, Err: fmt.Errorf("input rejected before any model call: %s", msg)}
	case exitcode.Unavailable:
		return &exitcode.Error{Code: code, Err: fmt.Errorf("%s\n%s", msg, ModelHint(cfg, out.ModelError))}
	}
	return &exitcode.Error{Code: code, Err: fmt.Errorf("%s (%s; see `superbiz runs show %s`)", msg, out.StopReason, out.RunID)}
}

// ModelHint tells a person what to do about the model failure me that
// ended a run (nil: the server was not reached), in the configured
// provider's words.
func ModelHint(cfg *config.Config, me *model.Error) string {
	p, err := registry.Provider(cfg)
	if err != nil {
		return "hint: " + err.Error()
	}
	return p.Hint(cfg, me)
}
