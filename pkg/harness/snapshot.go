package harness

import (
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// ProgressSnapshot is the safe, bounded account of what a run checked; it
// never holds raw results, so it may be shown when no draft is.
type ProgressSnapshot struct {
	Checks        []runrecord.Check    `json:"checks"`
	EvidenceFound int                  `json:"evidence_found"`
	NoEvidence    int                  `json:"no_evidence"`
	Errors        int                  `json:"errors"`
	Gained        int                  `json:"gained"`
	NoGain        int                  `json:"no_gain"`
	StopReason    runrecord.StopReason `json:"stop_reason"`
}

// MaxSnapshotChecks bounds the checks a snapshot (and so a published
// result) lists, whatever the tool budget.
const MaxSnapshotChecks = 32

// MaxCheckSummaryBytes bounds each check's one-line input summary wherever
// it is stored or shown.
const MaxCheckSummaryBytes = 160

// Snapshot builds the ProgressSnapshot of the run's READY checks.
func (b *Boundary) Snapshot(reason runrecord.StopReason) ProgressSnapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := SnapshotOf(b.invocations, reason)
	// The boundary's counters also see evaluations of refused calls.
	s.Gained, s.NoGain = b.gained, b.noGain
	return s
}

// SnapshotOf builds the bounded snapshot of a list of invocations: the READY
// checks with their one-line summaries, the status counts and the
// evaluations the calls carried.
func SnapshotOf(invs []Invocation, reason runrecord.StopReason) ProgressSnapshot {
	s := ProgressSnapshot{Checks: []runrecord.Check{}, StopReason: reason}
	for _, inv := range invs {
		switch inv.Evaluation {
		case Gained:
			s.Gained++
		case NoGain:
			s.NoGain++
		}
		if !inv.Ready() {
			continue
		}
		switch inv.EvidenceStatus {
		case tools.EvidenceFound:
			s.EvidenceFound++
		case tools.NoEvidence:
			s.NoEvidence++
		default:
			s.Errors++
		}
		if len(s.Checks) < MaxSnapshotChecks {
			s.Checks = append(s.Checks, runrecord.Check{Tool: inv.Tool, EvidenceStatus: string(inv.EvidenceStatus), ErrorCode: inv.ErrorCode, Summary: textclip.Bytes(strings.TrimSpace(inv.Summary), MaxCheckSummaryBytes), EmptyWindow: inv.EmptyWindow})
		}
	}
	return s
}

// HasProgress reports whether any READY check says something about the
// sources. A call refused for its own input (INVALID_INPUT, NOT_READ_ONLY, NOT_ALLOWED)
// is the model's mistake, like a call to an unknown tool, so it is no
// progress: a model that spends a budget on such calls ends the same way
// whichever mistake it repeats (FAILED, naming the budget).
func (s ProgressSnapshot) HasProgress() bool {
	for _, c := range s.Checks {
		if Informative(c) {
			return true
		}
	}
	return false
}

// Informative reports whether the check tells anything about the sources:
// evidence or its absence, or a backend's failure; not a refused input.
func Informative(c runrecord.Check) bool {
	if tools.EvidenceStatus(c.EvidenceStatus) != tools.StatusError {
		return true
	}
	switch c.ErrorCode {
	case tools.CodeInvalidInput, tools.CodeNotReadOnly, tools.CodeNotAllowed:
		return false
	}
	return true
}
