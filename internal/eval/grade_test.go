package eval

import (
	"regexp"
	"slices"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

func checks(fs []FailedCheck) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Check)
	}
	return out
}

// Each grader fails on its own fault and passes the honest answer.
func TestGrade(t *testing.T) {
	success := Expect{
		Outcome:      runrecord.OutcomeSuccess,
		RootCauseAny: [][]string{{"certificate", "x509"}, {"expired", "expiry"}},
		Forbidden:    []*regexp.Regexp{regexp.MustCompile(`(?i)out of memory`)},
		Evidence:     []string{"query_logs:app", "lookup_knowledge"},
	}
	fallback := Expect{Outcome: runrecord.OutcomeFallback, Evidence: []string{"query_logs"}}
	good := Attempt{Outcome: "SUCCESS", RootCause: "The X509 certificate EXPIRED.", Published: "answer",
		Cited: []string{"query_logs", "query_logs:app", "lookup_knowledge", "lookup_knowledge:a.md"}}
	for _, tt := range []struct {
		name   string
		e      Expect
		a      Attempt
		failed []string
	}{
		{"good", success, good, nil},
		{"summary matches", success, Attempt{Outcome: "SUCCESS", RootCause: "certificate", Summary: "it expired", Cited: good.Cited}, nil},
		{"wrong root cause", success, Attempt{Outcome: "SUCCESS", RootCause: "the certificate is fine", Cited: good.Cited}, []string{CheckRootCause}},
		{"forbidden", success, Attempt{Outcome: "SUCCESS", RootCause: good.RootCause, Published: "pods were Out Of Memory", Cited: good.Cited}, []string{CheckForbidden}},
		{"missing evidence", success, Attempt{Outcome: "SUCCESS", RootCause: good.RootCause, Cited: []string{"query_logs", "query_logs:other"}}, []string{CheckEvidence, CheckEvidence}},
		{"fallback on success pack", success, Attempt{Outcome: "FALLBACK", Checked: good.Cited}, []string{CheckOutcome}},
		{"honest fallback", fallback, Attempt{Outcome: "FALLBACK", Checked: []string{"query_logs"}}, nil},
		{"fallback without looking", fallback, Attempt{Outcome: "FALLBACK"}, []string{CheckEvidence}},
		{"false success", fallback, Attempt{Outcome: "SUCCESS", RootCause: "x", Cited: []string{"query_logs"}}, []string{CheckOutcome}},
		{"failed run", fallback, Attempt{Outcome: "FAILED", Checked: []string{"query_logs"}}, []string{CheckOutcome}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := checks(Grade(tt.e, tt.a)); !slices.Equal(got, tt.failed) {
				t.Errorf("failed %v, want %v", got, tt.failed)
			}
		})
	}
}
