package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/promtest"
)

// `eval pack` refuses a diagnosis whose timeline watched the series of the
// alert's rule (docs/SPEC.md, timeline --alert): that series is no
// [[timeline.metrics]] entry, so the pack could not build the timeline
// again. The alert comes from a real Alertmanager, its rule from a real
// Prometheus' /api/v1/rules; the run's build_timeline call watched
// "HighLatency expression"; eval pack exits 2 naming it and writes nothing.
func TestEvalPackRefusesAlertExpression(t *testing.T) {
	start := time.Date(2026, 11, 28, 14, 2, 0, 0, time.UTC)
	prom, am := promtest.FiringRuleAlert(t, start)
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	writeFiles(t, e.dir, map[string]string{"superbiz.toml": "[knowledge]\npaths = []\n\n[alerts]\nurl = \"" + am.URL + "\"\n\n[[metrics]]\nname = \"prom\"\nurl = \"" + prom.URL + "\"\n"})
	e.vars["SUPERBIZ_CONFIG"] = filepath.Join(e.dir, "superbiz.toml")
	e.vars["SUPERBIZ_NOW"] = start.Add(30 * time.Minute).Format(time.RFC3339)
	srv.Script(ev("call_tl1", "build_timeline", "", `{"since":"1h"}`),
		text(`{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"the timeline of the last hour","missing_info":["the latency samples"]}}`))
	r := e.run(t, "diagnose", "--alert", "HighLatency", "-o", "json")
	if r.code != 3 {
		t.Fatalf("the diagnosis: want a FALLBACK (exit 3)\n%s", r)
	}
	if shown := e.run(t, "runs", "show", "last", "-o", "json"); !strings.Contains(shown.stdout, `"HighLatency expression"`) {
		t.Fatalf("the run's timeline did not watch the alert's expression:\n%s", shown)
	}
	packs := filepath.Join(e.dir, "packs")
	r = e.run(t, "eval", "pack", "last", "--dir", packs, "--outcome", "FALLBACK")
	if r.code != 2 || !strings.Contains(r.stderr, `watched "HighLatency expression", the series the alert's rule compares, which is no [[timeline.metrics]] entry`) {
		t.Fatalf("want exit 2 and why\n%s", r)
	}
	if entries, err := os.ReadDir(packs); err == nil && len(entries) > 0 {
		t.Fatalf("a refused freeze left %v", entries)
	}
}
