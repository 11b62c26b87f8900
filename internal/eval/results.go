package eval

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Results is what `superbiz eval -o json` prints (docs/SPEC.md#superbiz-eval).
type Results struct {
	Summary Summary      `json:"summary"`
	Packs   []PackResult `json:"packs"`
}

// Summary is the suite's score. Rates are fractions (0 to 1) of graded
// attempts, or of graded packs for pass_hat_k.
type Summary struct {
	Packs   int `json:"packs"`
	Graded  int `json:"graded"`
	Skipped int `json:"skipped"`
	// PassAt1 is the share of attempts that pass, averaged over graded packs.
	PassAt1 float64 `json:"pass_at_1"`
	// PassHatK is the share of graded packs whose K repeats all pass.
	PassHatK float64 `json:"pass_hat_k"`
	// FalseSuccessRate is the share of attempts on FALLBACK packs answered SUCCESS.
	FalseSuccessRate float64 `json:"false_success_rate"`
	// AbstentionRate is the share of attempts on FALLBACK packs answered FALLBACK.
	AbstentionRate float64 `json:"abstention_rate"`
	// EvidenceRecall is the share of expected evidence entries the attempts provided.
	EvidenceRecall float64 `json:"evidence_recall"`
	// GuardBlocks counts the drafts the release guards stopped.
	GuardBlocks  int   `json:"guard_blocks"`
	MedianTokens int   `json:"median_tokens"`
	MedianMS     int64 `json:"median_ms"`
}

// PackResult is one pack's grade over its repeats; the figures are the
// median per repeat.
type PackResult struct {
	ID              string        `json:"id"`
	Title           string        `json:"title"`
	Tags            []string      `json:"tags"`
	ExpectedOutcome string        `json:"expected_outcome"`
	Outcome         string        `json:"outcome"`
	Pass            bool          `json:"pass"`
	FailedChecks    []FailedCheck `json:"failed_checks"`
	Repeats         int           `json:"repeats"`
	ToolCalls       int           `json:"tool_calls"`
	ModelCalls      int           `json:"model_calls"`
	Tokens          int           `json:"tokens"`
	WallMS          int64         `json:"wall_ms"`
	RunIDs          []string      `json:"run_ids"`
	Skipped         bool          `json:"skipped"`
	SkipReason      string        `json:"skip_reason"`
	Error           string        `json:"error"`
}

// Errors counts the packs listed with an error.
func (r *Results) Errors() int {
	n := 0
	for _, p := range r.Packs {
		if p.Error != "" {
			n++
		}
	}
	return n
}

// summarize scores the graded packs (no error, not skipped) from their attempts.
func summarize(packs []*Pack, prs []PackResult, attempts [][]Attempt) Summary {
	s := Summary{Packs: len(prs)}
	var passShare, allPass float64
	var fallbackAttempts, falseSuccess, abstained, found, wanted int
	var tokens []int
	var ms []int64
	for i, pr := range prs {
		if pr.Skipped {
			s.Skipped++
			continue
		}
		if pr.Error != "" || len(attempts[i]) == 0 {
			continue
		}
		s.Graded++
		e := packs[i].Expect
		passed := 0
		for _, a := range attempts[i] {
			if len(Grade(e, a)) == 0 {
				passed++
			}
			if e.Outcome == runrecord.OutcomeFallback {
				fallbackAttempts++
				switch runrecord.Outcome(a.Outcome) {
				case runrecord.OutcomeSuccess:
					falseSuccess++
				case runrecord.OutcomeFallback:
					abstained++
				}
			}
			f, w := recall(e, a)
			found, wanted = found+f, wanted+w
			s.GuardBlocks += a.GuardBlocks
			tokens, ms = append(tokens, a.Tokens), append(ms, a.WallMS)
		}
		passShare += float64(passed) / float64(len(attempts[i]))
		if passed == len(attempts[i]) {
			allPass++
		}
	}
	s.PassAt1, s.PassHatK = ratio(passShare, s.Graded), ratio(allPass, s.Graded)
	s.FalseSuccessRate = ratio(float64(falseSuccess), fallbackAttempts)
	s.AbstentionRate = ratio(float64(abstained), fallbackAttempts)
	s.EvidenceRecall = ratio(float64(found), wanted)
	s.MedianTokens, s.MedianMS = median(tokens), median(ms)
	return s
}

// ratio is n/d rounded to 4 decimals, 0 when d is 0.
func ratio(n float64, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(int64(n/float64(d)*10000+0.5)) / 10000
}

// MaxResultsBytes bounds a results file read back (--regrade, compare).
const MaxResultsBytes = 64 << 20

// resultsFile is how a results file is read: a regular file, bounded.
var resultsFile = config.Untrusted{What: "results file", Limit: MaxResultsBytes, Kind: "a file `eval -o json` wrote", Size: "eval -o json writes far less"}

// ReadResults reads a results file `eval -o json` wrote, through the
// configuration's guards (a regular file, MaxResultsBytes).
func ReadResults(path string) (*Results, error) {
	b, err := config.ReadRegular(path, resultsFile)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not eval results (-o json): %w", path, err)
	}
	return &r, nil
}

// Change is one pack's difference between two results.
type Change struct {
	ID         string `json:"id"`
	Before     string `json:"before"` // "pass", "fail", "skipped", "error" or "absent"
	After      string `json:"after"`
	BeforeNote string `json:"before_note"` // the outcome and failed checks
	AfterNote  string `json:"after_note"`
}

// Compare lists the packs whose grade differs between a and b, in a's
// order then b's new packs.
func Compare(a, b *Results) []Change {
	bByID := map[string]PackResult{}
	for _, p := range b.Packs {
		bByID[p.ID] = p
	}
	var out []Change
	seen := map[string]bool{}
	for _, pa := range a.Packs {
		seen[pa.ID] = true
		pb, ok := bByID[pa.ID]
		c := Change{ID: pa.ID, Before: pa.State(), BeforeNote: note(pa), After: "absent"}
		if ok {
			c.After, c.AfterNote = pb.State(), note(pb)
		}
		if c.Before != c.After || c.BeforeNote != c.AfterNote {
			out = append(out, c)
		}
	}
	for _, pb := range b.Packs {
		if !seen[pb.ID] {
			out = append(out, Change{ID: pb.ID, Before: "absent", After: pb.State(), AfterNote: note(pb)})
		}
	}
	return out
}

// State is the pack's grade in one word: pass, fail, skipped or error.
func (p PackResult) State() string {
	switch {
	case p.Error != "":
		return "error"
	case p.Skipped:
		return "skipped"
	case p.Pass:
		return "pass"
	}
	return "fail"
}

// Note is what a reader needs after the grade: the failed checks, the
// skip reason or the error, in one line.
func (p PackResult) Note() string {
	switch {
	case p.Error != "":
		return p.Error
	case p.Skipped:
		return p.SkipReason
	}
	var parts []string
	for _, c := range p.FailedChecks {
		parts = append(parts, c.Check+": "+c.Why)
	}
	return strings.Join(parts, "; ")
}

// note is a pack result's outcome and notes, for Compare.
func note(p PackResult) string {
	return strings.TrimSuffix(p.Outcome+"; "+p.Note(), "; ")
}
