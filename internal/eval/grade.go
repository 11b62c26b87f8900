package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The names of the checks grading makes, as failed_checks reports them.
const (
	CheckOutcome   = "outcome"
	CheckRootCause = "root_cause"
	CheckForbidden = "forbidden"
	CheckEvidence  = "evidence"
)

// FailedCheck is one expectation a run did not meet, and why.
type FailedCheck struct {
	Check string `json:"check"`
	Why   string `json:"why"`
}

// Attempt is what grading reads of one stored diagnosis run.
type Attempt struct {
	RunID   string
	Outcome string // the release outcome: SUCCESS, FALLBACK, FAILED or CANCELLED
	// RootCause and Summary are the released conclusion ("" without one).
	RootCause, Summary string
	// Published is every text the run published: the answer as shown.
	Published string
	// Cited is what the released FINDINGs cite: each tool, and tool:source
	// for the source it read (log source, database, metrics source, runbook).
	Cited []string
	// Checked is what the run's completed evidence calls read, in the same form.
	Checked     []string
	ToolCalls   int
	ModelCalls  int
	Tokens      int
	WallMS      int64
	GuardBlocks int
	// ModelUnavailable is true when the model server failed the run.
	ModelUnavailable bool
	// NotRecorded counts the statements refused NOT_RECORDED (a frozen
	// pack's database holds only the original run's statements).
	NotRecorded int
}

// maxDraftBytes bounds the stored final answer read back for its citations.
const maxDraftBytes = 1 << 20

// FromRun reads the attempt of a stored run: its outcome, its released
// conclusion, and which tool calls (and sources) its released findings cite.
func FromRun(d *runstore.RunDetail) (Attempt, error) {
	a := Attempt{
		RunID: d.ID, Outcome: string(d.ReleaseOutcome), Published: d.Answer,
		ToolCalls: d.Usage.ToolCalls, ModelCalls: d.Usage.ModelCalls, Tokens: d.Usage.Tokens(), WallMS: d.Usage.DurationMS,
		ModelUnavailable: d.StopReason == runrecord.StopModelUnavailable,
		NotRecorded:      notRecorded(d.Invocations),
	}
	if a.Outcome == "" {
		a.Outcome = string(d.Status)
	}
	for _, g := range d.GuardReviews {
		if g.Verdict == runrecord.VerdictReject || g.Verdict == runrecord.VerdictUnsupported {
			a.GuardBlocks++
		}
	}
	byID := map[string]runrecord.Invocation{}
	for _, inv := range d.Invocations {
		byID[inv.ToolCallID] = inv
		if inv.Kind == runrecord.KindEvidence && inv.EvidenceStatus != "" && inv.EvidenceStatus != "ERROR" {
			a.Checked = addAll(a.Checked, sourcesOf(inv))
		}
	}
	if d.ReleaseOutcome != runrecord.OutcomeSuccess {
		return a, nil
	}
	pub, err := release.ParsePublished(d.PublishedResult)
	if err != nil {
		return a, fmt.Errorf("run %s: %w", d.ID, err)
	}
	a.RootCause, a.Summary = pub.Conclusion.RootCause, pub.Conclusion.Summary
	draft, err := releasedDraft(d.ModelRounds)
	if err != nil {
		return a, fmt.Errorf("run %s: %w", d.ID, err)
	}
	for _, it := range draft.Analysis {
		if it.Type != agent.Finding {
			continue
		}
		for _, id := range it.ToolCallIDs {
			if inv, ok := byID[id]; ok {
				a.Cited = addAll(a.Cited, sourcesOf(inv))
			}
		}
	}
	return a, nil
}

// releasedDraft is the last strictly valid diagnosis draft among the run's
// model rounds: the one a SUCCESS released.
func releasedDraft(rounds []runrecord.ModelRound) (*agent.Draft, error) {
	for i := len(rounds) - 1; i >= 0; i-- {
		r := rounds[i]
		if (r.Purpose != runrecord.PurposeDiagnosis && r.Purpose != runrecord.PurposeFinal) || r.Response == nil {
			continue
		}
		var resp model.Response
		if err := json.Unmarshal(r.Response, &resp); err != nil {
			return nil, fmt.Errorf("model round %d: %w", r.Seq, err)
		}
		if d, err := agent.ParseDraft(resp.Message.Content, maxDraftBytes); err == nil {
			return d, nil
		}
	}
	return nil, fmt.Errorf("no released draft among %d model rounds", len(rounds))
}

// sourcesOf names what one evidence call read: the tool, and tool:source
// for each source its integration says the call read (the runbooks a
// lookup returned, the log source, database or metrics source it named or
// its result reports); see registry.SourcesOf.
func sourcesOf(inv runrecord.Invocation) []string {
	return registry.SourcesOf(inv.Tool, inv.Input, inv.Observation)
}

func addAll(list, items []string) []string {
	for _, s := range items {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// Grade checks one attempt against the pack's expectations: the outcome,
// every root_cause_any group (on a SUCCESS), no forbidden expression in the
// published text, and every evidence entry (cited by a released finding on
// a SUCCESS; read by a completed call on a FALLBACK).
func Grade(e Expect, a Attempt) []FailedCheck {
	var failed []FailedCheck
	if a.Outcome != string(e.Outcome) {
		why := fmt.Sprintf("expected %s, got %s", e.Outcome, a.Outcome)
		if e.Outcome == runrecord.OutcomeFallback && a.Outcome == string(runrecord.OutcomeSuccess) {
			why += ": a false success, claiming a root cause the evidence does not hold"
		}
		failed = append(failed, FailedCheck{CheckOutcome, why})
	}
	if a.Outcome == string(runrecord.OutcomeSuccess) && e.Outcome == runrecord.OutcomeSuccess {
		text := strings.ToLower(a.RootCause + "\n" + a.Summary)
		for _, g := range e.RootCauseAny {
			if !slices.ContainsFunc(g, func(w string) bool { return strings.Contains(text, strings.ToLower(w)) }) {
				failed = append(failed, FailedCheck{CheckRootCause, fmt.Sprintf("none of %q in the root cause or summary", g)})
			}
		}
	}
	for _, re := range e.Forbidden {
		if m := re.FindString(a.Published); m != "" {
			failed = append(failed, FailedCheck{CheckForbidden, fmt.Sprintf("%s matches %q in the published text", re, m)})
		}
	}
	have, how := a.Cited, "cited by a released finding"
	if a.Outcome != string(runrecord.OutcomeSuccess) {
		have, how = a.Checked, "read by a completed evidence call"
	}
	for _, ev := range e.Evidence {
		if !slices.Contains(have, ev) {
			failed = append(failed, FailedCheck{CheckEvidence, fmt.Sprintf("%s is not %s", ev, how)})
		}
	}
	return failed
}

// recall counts the expected evidence the attempt provides.
func recall(e Expect, a Attempt) (found, want int) {
	have := a.Cited
	if a.Outcome != string(runrecord.OutcomeSuccess) {
		have = a.Checked
	}
	for _, ev := range e.Evidence {
		if slices.Contains(have, ev) {
			found++
		}
	}
	return found, len(e.Evidence)
}

// notRecorded counts the run's calls refused NOT_RECORDED.
func notRecorded(invs []runrecord.Invocation) int {
	n := 0
	for _, inv := range invs {
		if inv.ErrorCode == tools.CodeNotRecorded {
			n++
		}
	}
	return n
}
