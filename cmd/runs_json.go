package cmd

import (
	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// jsonRuns renders `runs -o json` and `runs show -o json`
// (docs/SPEC.md#superbiz-runs): stored documents passed through, redacted.
type jsonRuns struct{}

func (jsonRuns) list(w egress.Writer, runs []runstore.RunSummary, _ string) error {
	return writeJSON(w, runview.Runs(runs))
}

func (jsonRuns) show(w egress.Writer, d *runstore.RunDetail) error {
	return writeJSON(w, runview.DetailOf(d))
}
