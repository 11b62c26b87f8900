package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Results is what `superbiz eval -o json` prints (docs/SPEC.md#superbiz-eval).
type Results struct {
	Summary Summary      `json:"summary"`
	Packs   []PackResult `json:"packs"`
}

// Summary is the suite's score and what was measured. Rates are fractions
// (0 to 1) of graded attempts, or of graded packs for pass_hat_k; a rate
// with nothing to measure is null.
type Summary struct {
	// Model is the model the runs used, as they recorded it.
	Model ModelInfo `json:"model"`
	// SuperbizVersion is the version of the superbiz that ran the eval.
	SuperbizVersion string `json:"superbiz_version"`
	// StartedAt is when the eval started (RFC 3339).
	StartedAt string `json:"started_at"`
	Packs     int    `json:"packs"`
	Graded    int    `json:"graded"`
	Skipped   int    `json:"skipped"`
	// PassAt1 is the share of attempts that pass, averaged over graded packs.
	PassAt1 Rate `json:"pass_at_1"`
	// PassHatK is the share of graded packs whose K repeats all pass.
	PassHatK Rate `json:"pass_hat_k"`
	// FalseSuccessRate is the share of attempts on FALLBACK packs answered SUCCESS.
	FalseSuccessRate Rate `json:"false_success_rate"`
	// AbstentionRate is the share of attempts on FALLBACK packs answered FALLBACK.
	AbstentionRate Rate `json:"abstention_rate"`
	// EvidenceRecall is the share of expected evidence entries the attempts provided.
	EvidenceRecall Rate `json:"evidence_recall"`
	// GuardBlocks counts the drafts the release guards stopped.
	GuardBlocks  int   `json:"guard_blocks"`
	MedianTokens int   `json:"median_tokens"`
	MedianMS     int64 `json:"median_ms"`
}

// ModelInfo is the model an eval's runs used, as a run records it: its
// name, the provider and the server's URL with any password masked, so that
// two results files can be told apart later.
type ModelInfo struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	URL      string `json:"url"`
}

// modelInfo is the model of one resolved configuration, as the run store
// records it (cmd's wiring: model.name, model.provider, Model.Endpoint).
func modelInfo(m config.Model) ModelInfo {
	return ModelInfo{Name: m.Name, Provider: m.Provider, URL: m.Endpoint()}
}

// String is the model as the text and Markdown views head them with:
// "qwen3:8b (ollama, http://127.0.0.1:11434)"; "unknown" when the results
// do not say (no pack could be resolved, or a file written before they did).
func (m ModelInfo) String() string {
	if m.Name == "" {
		return "unknown"
	}
	return m.Name + " (" + m.Provider + ", " + m.URL + ")"
}

// Rate is a share from 0 to 1 rounded to 4 decimals, or none when there was
// nothing to measure (a denominator of 0): JSON null, "n/a" in text, never
// a NaN or a made-up 0.
type Rate struct {
	v  float64
	ok bool
}

// rate is n/d rounded to 4 decimals, none when d is 0.
func rate(n float64, d int) Rate {
	if d == 0 {
		return Rate{}
	}
	return Rate{v: math.Round(n/float64(d)*10000) / 10000, ok: true}
}

// RateOf is the measured rate v, for tests and readers that build results.
func RateOf(v float64) Rate { return Rate{v: v, ok: true} }

// Value is the rate and whether there was anything to measure.
func (r Rate) Value() (float64, bool) { return r.v, r.ok }

// Text is the rate with two decimals, or "n/a".
func (r Rate) Text() string {
	if !r.ok {
		return "n/a"
	}
	return strconv.FormatFloat(r.v, 'f', 2, 64)
}

// MarshalJSON writes the rate, or null when there is none.
func (r Rate) MarshalJSON() ([]byte, error) {
	if !r.ok {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, r.v, 'f', -1, 64), nil
}

// UnmarshalJSON reads a rate from 0 to 1, or null.
func (r *Rate) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = Rate{}
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("a rate: %w", err)
	}
	if !(v >= 0 && v <= 1) {
		return fmt.Errorf("a rate is from 0 to 1 or null, not %s", b)
	}
	*r = Rate{v: v, ok: true}
	return nil
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
	// NotRecorded counts, over the repeats, the statements a frozen pack's
	// recording did not hold (ERROR NOT_RECORDED): a model that asked what
	// the original run never asked.
	NotRecorded int    `json:"not_recorded"`
	Skipped     bool   `json:"skipped"`
	SkipReason  string `json:"skip_reason"`
	Error       string `json:"error"`
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
	s.PassAt1, s.PassHatK = rate(passShare, s.Graded), rate(allPass, s.Graded)
	s.FalseSuccessRate = rate(float64(falseSuccess), fallbackAttempts)
	s.AbstentionRate = rate(float64(abstained), fallbackAttempts)
	s.EvidenceRecall = rate(float64(found), wanted)
	s.MedianTokens, s.MedianMS = median(tokens), median(ms)
	return s
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

// Comparison is `eval compare` over two or more results files: one column
// per file, headed by its model; a row per summary rate, then a row per
// pack whose grade differs between the files.
type Comparison struct {
	Files []ComparedFile `json:"files"`
	Rates []RateRow      `json:"rates"`
	Packs []PackRow      `json:"packs"`
	// SamePacks says whether every file graded the same packs; when not,
	// the rates are over different pack sets and do not compare.
	SamePacks bool `json:"same_packs"`
	// CommonPacks counts the packs graded in every file.
	CommonPacks int `json:"common_packs"`
}

// ComparedFile is one column: the file and what it measured.
type ComparedFile struct {
	File            string    `json:"file"`
	Model           ModelInfo `json:"model"`
	SuperbizVersion string    `json:"superbiz_version"`
	StartedAt       string    `json:"started_at"`
	// Graded counts the packs the file's rates are over.
	Graded int `json:"graded"`
}

// RateRow is one summary rate across the files.
type RateRow struct {
	Name   string `json:"name"`
	Values []Rate `json:"values"`
}

// PackRow is one pack across the files: its grade in each (see Grade, or
// "absent") and each file's note (the outcome, then the failed checks, the
// skip reason or the error).
type PackRow struct {
	ID     string   `json:"id"`
	Grades []string `json:"grades"`
	Notes  []string `json:"notes"`
}

// The rates a comparison lists, in order: the names of -o json's summary.
var comparedRates = []struct {
	name string
	of   func(Summary) Rate
}{
	{"pass_at_1", func(s Summary) Rate { return s.PassAt1 }},
	{"pass_hat_k", func(s Summary) Rate { return s.PassHatK }},
	{"false_success_rate", func(s Summary) Rate { return s.FalseSuccessRate }},
	{"abstention_rate", func(s Summary) Rate { return s.AbstentionRate }},
	{"evidence_recall", func(s Summary) Rate { return s.EvidenceRecall }},
}

// Compare lines the results up, one column per file (files names them): every
// summary rate, then every pack whose grade (pass, fail and which checks,
// skipped, error, absent) differs between them, in the order the packs
// first appear.
func Compare(files []string, rs []*Results) Comparison {
	c := Comparison{Files: []ComparedFile{}, Rates: []RateRow{}, Packs: []PackRow{}}
	graded := map[string]int{} // pack id: how many files graded it
	for i, r := range rs {
		n := 0
		for _, p := range r.Packs {
			if st := p.State(); st == "pass" || st == "fail" {
				graded[p.ID]++
				n++
			}
		}
		c.Files = append(c.Files, ComparedFile{File: files[i], Model: r.Summary.Model, SuperbizVersion: r.Summary.SuperbizVersion, StartedAt: r.Summary.StartedAt, Graded: n})
	}
	for _, n := range graded {
		if n == len(rs) {
			c.CommonPacks++
		}
	}
	c.SamePacks = c.CommonPacks == len(graded)
	for _, cr := range comparedRates {
		row := RateRow{Name: cr.name}
		for _, r := range rs {
			row.Values = append(row.Values, cr.of(r.Summary))
		}
		c.Rates = append(c.Rates, row)
	}
	var ids []string
	byID := make([]map[string]PackResult, len(rs))
	for i, r := range rs {
		byID[i] = map[string]PackResult{}
		for _, p := range r.Packs {
			if _, dup := byID[i][p.ID]; dup {
				continue
			}
			byID[i][p.ID] = p
			if !slices.Contains(ids, p.ID) {
				ids = append(ids, p.ID)
			}
		}
	}
	for _, id := range ids {
		row := PackRow{ID: id}
		for i := range rs {
			p, ok := byID[i][id]
			if !ok {
				row.Grades, row.Notes = append(row.Grades, "absent"), append(row.Notes, "")
				continue
			}
			row.Grades, row.Notes = append(row.Grades, p.Grade()), append(row.Notes, note(p))
		}
		if slices.ContainsFunc(row.Grades, func(g string) bool { return g != row.Grades[0] }) {
			c.Packs = append(c.Packs, row)
		}
	}
	return c
}

// Grade is the pack's state, with the checks a failed pack missed and
// the outcome it got: "pass", "fail: root_cause (SUCCESS)", "skipped" or
// "error"; two failures differ when their checks or outcomes do.
func (p PackResult) Grade() string {
	st := p.State()
	if st != "fail" {
		return st
	}
	var checks []string
	for _, c := range p.FailedChecks {
		if !slices.Contains(checks, c.Check) {
			checks = append(checks, c.Check)
		}
	}
	return fmt.Sprintf("%s: %s (%s)", st, strings.Join(checks, ","), cmpOr(p.Outcome, "no outcome"))
}

// checkWords are the few words a failed check is named by in a table row,
// before the full reason (Note) on the lines below.
var checkWords = map[string]string{
	CheckRootCause: "cause words missed",
	CheckForbidden: "forbidden claim",
	CheckEvidence:  "evidence missing",
}

// Why is the reason of a failed pack in a few words, for a table row: the
// outcome it should have had, then each failed check by name, so a fail
// whose outcome is the expected one still says why ("cause words
// missed"); "" for any other state.
func (p PackResult) Why() string {
	if p.State() != "fail" {
		return ""
	}
	var words []string
	for _, c := range p.FailedChecks {
		w, ok := checkWords[c.Check]
		if c.Check == CheckOutcome {
			w, ok = "want "+p.ExpectedOutcome, true
		}
		if ok && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return strings.Join(words, ", ")
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
func (p PackResult) Note() string { return strings.Join(p.Notes(), "; ") }

// Notes are the parts of Note, one each: a table prints them one a line.
func (p PackResult) Notes() []string {
	switch {
	case p.Error != "":
		return []string{p.Error}
	case p.Skipped:
		return []string{p.SkipReason}
	}
	var parts []string
	for _, c := range p.FailedChecks {
		parts = append(parts, c.Check+": "+c.Why)
	}
	if p.NotRecorded > 0 {
		parts = append(parts, fmt.Sprintf("%d statement(s) %s: not in the pack's recording", p.NotRecorded, tools.CodeNotRecorded))
	}
	return parts
}

// note is a pack result's outcome and notes, for Compare.
func note(p PackResult) string {
	return strings.TrimSuffix(p.Outcome+"; "+p.Note(), "; ")
}
