package evalpack

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Tag is the tag every frozen pack carries, so `eval --filter frozen`
// selects a team's own incidents.
const Tag = "frozen"

// scenarioFile is scenario.toml as eval.LoadPack reads it.
type scenarioFile struct {
	ID       string     `toml:"id"`
	Title    string     `toml:"title"`
	Tags     []string   `toml:"tags"`
	Now      string     `toml:"now"`
	Question string     `toml:"question,omitempty"`
	Alert    *alertFile `toml:"alert,omitempty"`
	Expect   expectFile `toml:"expect"`
}

type alertFile struct {
	Labels      map[string]string `toml:"labels"`
	Annotations map[string]string `toml:"annotations,omitempty"`
	StartsAt    string            `toml:"starts_at"`
}

type expectFile struct {
	Outcome      runrecord.Outcome `toml:"outcome"`
	RootCauseAny [][]string        `toml:"root_cause_any,omitempty"`
	Evidence     []string          `toml:"evidence"`
}

// maxTitle bounds the title taken from the question.
const maxTitle = 100

// newScenario is the pack's scenario.toml: the run's question (or the alert
// it started from), its clock as now, the expected outcome and root cause.
func newScenario(run *runstore.RunDetail, id string, opts Options) (*scenarioFile, error) {
	sc := &scenarioFile{ID: id, Tags: []string{Tag}, Now: runClock(run).Format(time.RFC3339)}
	out := opts.Outcome
	if out == "" {
		out = run.ReleaseOutcome
	}
	switch out {
	case runrecord.OutcomeSuccess, runrecord.OutcomeFallback:
	default:
		return nil, refused("run %s ended %s, which no pack can expect: give --outcome SUCCESS or FALLBACK", run.ID, cmpOr(string(out), string(run.Status)))
	}
	sc.Expect.Outcome = out
	for _, rc := range opts.RootCauses {
		var group []string
		for w := range strings.SplitSeq(rc, ",") {
			if w = strings.TrimSpace(w); w != "" {
				group = append(group, w)
			}
		}
		if len(group) == 0 {
			return nil, refused("--root-cause %q holds no word: give comma-separated alternatives", rc)
		}
		sc.Expect.RootCauseAny = append(sc.Expect.RootCauseAny, group)
	}
	if out == runrecord.OutcomeSuccess && len(sc.Expect.RootCauseAny) == 0 {
		return nil, refused("a SUCCESS pack says which root cause it expects: give --root-cause WORDS (comma-separated alternatives; repeat it for each idea)")
	}
	if al, ok := parseAlert(run.Query); ok {
		sc.Alert = al
		sc.Title = "alert " + al.Labels["alertname"]
	} else {
		sc.Question = run.Query
		sc.Title = firstLine(run.Query)
	}
	if strings.TrimSpace(sc.Title) == "" {
		sc.Title = "run " + run.ID
	}
	return sc, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// firstLine is the first line of s, clipped to maxTitle bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return textclip.Bytes(strings.TrimSpace(s), maxTitle)
}

// The lines of an alert's query (internal/alerts.Query) that parseAlert reads.
const (
	alertHead        = "Diagnose the firing Alertmanager alert "
	alertLabels      = "Labels: "
	alertSummary     = "Summary: "
	alertDescription = "Description: "
	alertOther       = "Other annotations: "
)

// alertStarted reads the start of the alert from its query's second line.
var alertStarted = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Started: (\S+)\. Diagnosis clock: `)
})

// parseAlert reads back the alert a `diagnose --alert` run started from, out
// of the query alerts.Query wrote for it: its labels, annotations and start.
// ok is false for a run that did not start from an alert.
func parseAlert(query string) (*alertFile, bool) {
	if !strings.HasPrefix(query, alertHead) {
		return nil, false
	}
	al := &alertFile{Labels: map[string]string{}, Annotations: map[string]string{}}
	for _, line := range strings.Split(query, "\n") {
		switch {
		case alertStarted().MatchString(line):
			al.StartsAt = alertStarted().FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, alertLabels):
			al.Labels = pairs(strings.TrimPrefix(line, alertLabels))
		case strings.HasPrefix(line, alertSummary):
			al.Annotations["summary"] = strings.TrimPrefix(line, alertSummary)
		case strings.HasPrefix(line, alertDescription):
			al.Annotations["description"] = strings.TrimPrefix(line, alertDescription)
		case strings.HasPrefix(line, alertOther):
			for k, v := range pairs(strings.TrimPrefix(line, alertOther)) {
				al.Annotations[k] = v
			}
		}
	}
	if _, err := time.Parse(time.RFC3339, al.StartsAt); err != nil || al.Labels["alertname"] == "" {
		return nil, false
	}
	if len(al.Annotations) == 0 {
		al.Annotations = nil
	}
	return al, true
}

// labelName is a Prometheus label name followed by '=': where a new pair
// of "k=v, k=v" starts.
var labelName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// pairs reads "k=v, k=v" (alerts.Query's pairs): a ", " not followed by a
// label name belongs to the value before it.
func pairs(s string) map[string]string {
	out := map[string]string{}
	var parts []string
	for part := range strings.SplitSeq(s, ", ") {
		if len(parts) > 0 && !labelName().MatchString(part) {
			parts[len(parts)-1] += ", " + part
			continue
		}
		parts = append(parts, part)
	}
	for _, part := range parts {
		if k, v, ok := strings.Cut(part, "="); ok {
			out[k] = v
		}
	}
	return out
}

// evidence is what the pack expects an answer to rest on: the sources the
// run read with evidence, and for a SUCCESS only those its released
// findings cite (an answer passes the pack when it cites them too). A tool
// is listed alone only when no source of it is.
func evidence(run *runstore.RunDetail, outcome runrecord.Outcome) []string {
	var found []string
	for _, inv := range run.Invocations {
		if inv.Ready() && inv.EvidenceStatus == tools.EvidenceFound {
			found = append(found, registry.SourcesOf(inv.Tool, inv.Input, inv.Observation)...)
		}
	}
	if outcome == runrecord.OutcomeSuccess {
		a, err := eval.FromRun(run)
		if err != nil || a.Outcome != string(runrecord.OutcomeSuccess) {
			return []string{}
		}
		found = slices.DeleteFunc(found, func(s string) bool { return !slices.Contains(a.Cited, s) })
	}
	out := []string{}
	for _, s := range found {
		if slices.Contains(out, s) || !eval.ValidEvidence(s) {
			continue
		}
		if !strings.Contains(s, ":") && slices.ContainsFunc(found, func(o string) bool { return strings.HasPrefix(o, s+":") }) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// header is the first line of the pack's TOML files.
func header(run *runstore.RunDetail) []byte {
	return []byte("# Frozen by `superbiz eval pack` from run " + egress.Mask(run.ID).String() + ".\n")
}

// writeScenario writes scenario.toml: sc, with the keys the sources set
// (metrics_sources).
func writeScenario(p *frozen.Pack, sc *scenarioFile) error {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(sc); err != nil {
		return fmt.Errorf("eval pack: encode %s: %w", eval.ScenarioFile, err)
	}
	if extra := p.ScenarioKeys(); len(extra) > 0 {
		var all map[string]any
		if _, err := toml.Decode(b.String(), &all); err != nil {
			return fmt.Errorf("eval pack: encode %s: %w", eval.ScenarioFile, err)
		}
		for k, v := range extra {
			all[k] = v
		}
		b.Reset()
		if err := toml.NewEncoder(&b).Encode(all); err != nil {
			return fmt.Errorf("eval pack: encode %s: %w", eval.ScenarioFile, err)
		}
	}
	return p.WriteText(eval.ScenarioFile, egress.Mask(string(append(header(p.Run), b.Bytes()...))))
}
