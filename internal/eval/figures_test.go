package eval

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// rates is the summary's five rates, nil for a null one, for a table.
type rates struct{ pass1, passK, falseSuccess, abstention, recall *float64 }

func f(v float64) *float64 { return &v }

func (r rates) of(s Summary) []Rate {
	var out []Rate
	for _, p := range []*float64{r.pass1, r.passK, r.falseSuccess, r.abstention, r.recall} {
		if p == nil {
			out = append(out, Rate{})
		} else {
			out = append(out, RateOf(*p))
		}
	}
	return out
}

func summaryRates(s Summary) []Rate {
	return []Rate{s.PassAt1, s.PassHatK, s.FalseSuccessRate, s.AbstentionRate, s.EvidenceRecall}
}

// evalCase is one suite's grades: its packs (nil attempts for a skipped
// pack, an Err for a pack that could not load) and the figures worked out
// by hand in the comments.
type evalCase struct {
	name     string
	packs    []*Pack
	attempts [][]Attempt
	skipped  []bool
	// Hand-computed.
	graded, skippedN int
	rates            rates
	guardBlocks      int
	medTokens        int
	medMS            int64
	pass             []bool
	packTokens       []int
	packMS           []int64
	checks           [][]string // the failed checks of each pack, repeat by repeat
}

var (
	diskPack = &Pack{ID: "disk", Expect: Expect{Outcome: runrecord.OutcomeSuccess, RootCauseAny: [][]string{{"disk", "space"}}, Evidence: []string{"query_logs:app"}}}
	tlsPack  = &Pack{ID: "tls", Expect: Expect{Outcome: runrecord.OutcomeSuccess, RootCauseAny: [][]string{{"TLS", "x509"}, {"expired"}}, Evidence: []string{"query_logs:app", "lookup_knowledge"}}}
	oomPack  = &Pack{ID: "oom", Expect: Expect{Outcome: runrecord.OutcomeSuccess, RootCauseAny: [][]string{{"OOMKilled"}}}}
	fbPack   = &Pack{ID: "fb", Expect: Expect{Outcome: runrecord.OutcomeFallback, Evidence: []string{"query_logs"}}}
	fbBare   = &Pack{ID: "fb-bare", Expect: Expect{Outcome: runrecord.OutcomeFallback}}
	metrics  = &Pack{ID: "metrics", Expect: Expect{Outcome: runrecord.OutcomeSuccess, RootCauseAny: [][]string{{"gc"}}}}
)

var evalCases = []evalCase{
	{
		// Repeats 2, no FALLBACK pack. disk passes 1 of 2, tls 2 of 2:
		// pass@1 = (1/2 + 2/2) / 2 = 0.75; pass^k = 1 of 2 packs = 0.5;
		// false success and abstention have no FALLBACK attempt: null;
		// evidence: disk 1/1 + 0/1, tls 2/2 + 2/2 = 5/6 = 0.8333;
		// tokens 100 300 200 400 → sorted 100 200 300 400, lower middle 200;
		// ms 10 30 40 20 → 20. Per pack: disk tokens {100, 300} → 100,
		// ms {10, 30} → 10; tls tokens {200, 400} → 200, ms {40, 20} → 20.
		name:  "repeats 2 without FALLBACK packs",
		packs: []*Pack{diskPack, tlsPack},
		attempts: [][]Attempt{
			{
				{Outcome: "SUCCESS", RootCause: "Disk FULL on /var", Cited: []string{"query_logs", "query_logs:app"}, Tokens: 100, WallMS: 10},
				{Outcome: "SUCCESS", RootCause: "out of memory", Tokens: 300, WallMS: 30, GuardBlocks: 1},
			},
			{
				{Outcome: "SUCCESS", RootCause: "the tls certificate", Summary: "it EXPIRED at 09:08", Cited: []string{"query_logs:app", "lookup_knowledge"}, Tokens: 200, WallMS: 40},
				{Outcome: "SUCCESS", RootCause: "x509: certificate has expired", Cited: []string{"query_logs:app", "lookup_knowledge", "lookup_knowledge:a.md"}, Tokens: 400, WallMS: 20, GuardBlocks: 2},
			},
		},
		graded: 2, rates: rates{f(0.75), f(0.5), nil, nil, f(0.8333)}, guardBlocks: 3, medTokens: 200, medMS: 20,
		pass: []bool{false, true}, packTokens: []int{100, 200}, packMS: []int64{10, 20},
		checks: [][]string{{CheckRootCause, CheckEvidence}, nil},
	},
	{
		// The false-success denominator is the FALLBACK attempts (2), not
		// every graded attempt (4): 1/2 = 0.5, abstention 1/2 = 0.5.
		// pass@1 = (2/2 + 1/2) / 2 = 0.75, pass^k = 0.5. oom expects no
		// evidence; fb: f1 read query_logs (1/1), f2 cited it (1/1): 2/2 = 1.
		// The word OOMKilled matches "oomkilled" whatever its case.
		// tokens 10 20 30 40 → 20, ms 1 2 3 4 → 2.
		name:  "false success among FALLBACK attempts only",
		packs: []*Pack{oomPack, fbPack},
		attempts: [][]Attempt{
			{
				{Outcome: "SUCCESS", RootCause: "the worker was oomkilled", Tokens: 10, WallMS: 1},
				{Outcome: "SUCCESS", RootCause: "kernel: OOMKILLED worker", Tokens: 20, WallMS: 2},
			},
			{
				{Outcome: "FALLBACK", Checked: []string{"query_logs", "query_logs:app"}, Tokens: 30, WallMS: 3},
				{Outcome: "SUCCESS", RootCause: "a guess", Cited: []string{"query_logs"}, Tokens: 40, WallMS: 4},
			},
		},
		graded: 2, rates: rates{f(0.75), f(0.5), f(0.5), f(0.5), f(1)}, medTokens: 20, medMS: 2,
		pass: []bool{true, false}, packTokens: []int{10, 30}, packMS: []int64{1, 3},
		checks: [][]string{nil, {CheckOutcome}},
	},
	{
		// Repeats 3 (odd): only the FALLBACK attempt passes, pass@1 =
		// 1/3 = 0.3333, pass^k 0; of the 3 FALLBACK attempts one abstains
		// (1/3) and one claims a cause (false success 1/3), the FAILED run
		// is neither; fb-bare expects no evidence: recall null.
		// tokens 300 100 200 → 200, ms 5 7 6 → 6.
		name:  "repeats 3, one false success, one failed run",
		packs: []*Pack{fbBare},
		attempts: [][]Attempt{{
			{Outcome: "FALLBACK", Tokens: 300, WallMS: 5},
			{Outcome: "FAILED", Tokens: 100, WallMS: 7},
			{Outcome: "SUCCESS", RootCause: "x", Tokens: 200, WallMS: 6},
		}},
		graded: 1, rates: rates{f(0.3333), f(0), f(0.3333), f(0.3333), nil}, medTokens: 200, medMS: 6,
		pass: []bool{false}, packTokens: []int{200}, packMS: []int64{6},
		checks: [][]string{{CheckOutcome, CheckOutcome}},
	},
	{
		// Nothing graded: a skipped metrics pack and a pack that failed to
		// load. Every rate is null, every median 0.
		name:     "no graded pack",
		packs:    []*Pack{metrics, {ID: "broken", Err: errTestBroken}},
		attempts: [][]Attempt{nil, nil},
		skipped:  []bool{true, false},
		graded:   0, skippedN: 1, rates: rates{}, pass: []bool{false, false}, packTokens: []int{0, 0}, packMS: []int64{0, 0},
		checks: [][]string{nil, nil},
	},
	{
		// A skipped pack beside a graded one counts in packs and skipped,
		// never in a rate: pass@1 1/1, recall 1/1.
		name:     "a skipped pack beside a graded one",
		packs:    []*Pack{metrics, diskPack},
		attempts: [][]Attempt{nil, {{Outcome: "SUCCESS", RootCause: "no space left", Cited: []string{"query_logs:app"}, Tokens: 7, WallMS: 8}}},
		skipped:  []bool{true, false},
		graded:   1, skippedN: 1, rates: rates{f(1), f(1), nil, nil, f(1)}, medTokens: 7, medMS: 8,
		pass: []bool{false, true}, packTokens: []int{0, 7}, packMS: []int64{0, 8},
		checks: [][]string{nil, nil},
	},
}

var errTestBroken = errorString("broken.toml: bad")

type errorString string

func (e errorString) Error() string { return string(e) }

// The figures of small result sets, each worked out by hand: every rate,
// its null when there is nothing to measure, the lower-middle medians and
// each pack's grade.
func TestFigures(t *testing.T) {
	for _, tt := range evalCases {
		t.Run(tt.name, func(t *testing.T) {
			prs := make([]PackResult, len(tt.packs))
			for i, p := range tt.packs {
				prs[i] = newPackResult(p)
				switch {
				case tt.skipped != nil && tt.skipped[i]:
					prs[i].Skipped = true
				case p.Err == nil:
					prs[i].grade(p, tt.attempts[i])
				}
			}
			s := summarize(tt.packs, prs, tt.attempts)
			if got, want := summaryRates(s), tt.rates.of(s); !slices.Equal(got, want) {
				t.Errorf("rates %v, want %v", got, want)
			}
			if s.Packs != len(tt.packs) || s.Graded != tt.graded || s.Skipped != tt.skippedN || s.GuardBlocks != tt.guardBlocks || s.MedianTokens != tt.medTokens || s.MedianMS != tt.medMS {
				t.Errorf("summary %+v, want graded %d, skipped %d, guard blocks %d, medians %d tokens %d ms", s, tt.graded, tt.skippedN, tt.guardBlocks, tt.medTokens, tt.medMS)
			}
			for i, pr := range prs {
				var got []string
				for _, c := range pr.FailedChecks {
					got = append(got, c.Check)
				}
				if pr.Pass != tt.pass[i] || pr.Tokens != tt.packTokens[i] || pr.WallMS != tt.packMS[i] || !slices.Equal(got, tt.checks[i]) {
					t.Errorf("pack %s: pass %v, %d tokens, %d ms, checks %v; want %v, %d, %d, %v", pr.ID, pr.Pass, pr.Tokens, pr.WallMS, got, tt.pass[i], tt.packTokens[i], tt.packMS[i], tt.checks[i])
				}
			}
			// A null rate is JSON null, never NaN, 0 or a huge negative.
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back Summary
			if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(summaryRates(back), summaryRates(s)) {
				t.Errorf("JSON round trip %s: %v", b, err)
			}
			if tt.rates.recall == nil && !strings.Contains(string(b), `"evidence_recall":null`) {
				t.Errorf("JSON %s: want evidence_recall null", b)
			}
		})
	}
}

// A rate's text and JSON forms, and what a results file may hold.
func TestRate(t *testing.T) {
	for _, tt := range []struct {
		r          Rate
		text, json string
	}{
		{rate(1, 3), "0.33", "0.3333"},
		{rate(2, 3), "0.67", "0.6667"},
		{rate(0, 5), "0.00", "0"},
		{rate(5, 5), "1.00", "1"},
		{rate(0, 0), "n/a", "null"},
		{rate(3, 0), "n/a", "null"},
	} {
		b, _ := json.Marshal(tt.r)
		if tt.r.Text() != tt.text || string(b) != tt.json {
			t.Errorf("%+v: text %q json %s, want %q %s", tt.r, tt.r.Text(), b, tt.text, tt.json)
		}
	}
	for _, bad := range []string{"1.5", "-0.1", `"0.5"`, "1e400"} {
		var r Rate
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s read as a rate %+v", bad, r)
		}
	}
}

// The evidence a stored run provides: only a completed evidence call (not
// an ERROR one) counts as checked, and only a released FINDING (not a
// NEGATIVE_OBSERVATION) counts as cited.
func TestFromRunEvidence(t *testing.T) {
	inv := func(id, tool, source, status string) runrecord.Invocation {
		key := "source" // each tool's own input member that names what it read
		if tool == "query_mysql" {
			key = "database"
		}
		return runrecord.Invocation{ToolCallID: id, Tool: tool, Kind: runrecord.KindEvidence, EvidenceStatus: tools.EvidenceStatus(status),
			Input: json.RawMessage(`{"` + key + `":"` + source + `"}`)}
	}
	draft := agent.Draft{
		Conclusion: &agent.Conclusion{Summary: "disk full", RootCause: "disk full", Confidence: "HIGH"},
		Analysis: []agent.AnalysisItem{
			{Type: agent.Finding, Claim: "no space", ToolCallIDs: []string{"call_1"}},
			{Type: agent.NegativeObservation, Claim: "no errors in db", Scope: "db", ToolCallIDs: []string{"call_2"}},
		},
		ActionPlan: []agent.Action{}, Recommendations: []string{}, Limitations: agent.Limitations{Scope: "s", MissingInfo: []string{}},
	}
	content, _ := json.Marshal(draft)
	resp, _ := json.Marshal(model.Response{Message: model.Message{Role: "assistant", Content: string(content)}})
	pub, _ := json.Marshal(release.PublishedResult{Query: "why?", Conclusion: draft.Conclusion, Findings: []release.Finding{}, ActionPlan: []agent.Action{},
		Recommendations: []string{}, Limitations: draft.Limitations, KnowledgeRefs: nil})
	d := &runstore.RunDetail{PublishedResult: pub, Invocations: []runrecord.Invocation{
		inv("call_1", "query_logs", "app", "EVIDENCE_FOUND"),
		inv("call_2", "query_mysql", "orders", "NO_EVIDENCE"),
		inv("call_3", "query_metrics", "prom", "ERROR"),
	}, ModelRounds: []runrecord.ModelRound{{Seq: 1, Purpose: runrecord.PurposeDiagnosis, Response: resp}}}
	d.ID, d.ReleaseOutcome = "r_1", runrecord.OutcomeSuccess
	a, err := FromRun(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"query_logs", "query_logs:app"}; !slices.Equal(a.Cited, want) {
		t.Errorf("cited %v, want %v (the FINDING's call only)", a.Cited, want)
	}
	if want := []string{"query_logs", "query_logs:app", "query_mysql", "query_mysql:orders"}; !slices.Equal(a.Checked, want) {
		t.Errorf("checked %v, want %v (no ERROR call)", a.Checked, want)
	}
	// Graded: a SUCCESS pack expecting the database fails on its evidence;
	// a FALLBACK run that only erred on the metrics has not checked them.
	if got := checks(Grade(Expect{Outcome: runrecord.OutcomeSuccess, RootCauseAny: [][]string{{"disk"}}, Evidence: []string{"query_mysql:orders"}}, a)); !slices.Equal(got, []string{CheckEvidence}) {
		t.Errorf("a NEGATIVE_OBSERVATION counted as cited: %v", got)
	}
	a.Outcome = "FALLBACK"
	if got := checks(Grade(Expect{Outcome: runrecord.OutcomeFallback, Evidence: []string{"query_metrics:prom"}}, a)); !slices.Equal(got, []string{CheckEvidence}) {
		t.Errorf("an ERROR call counted as checked: %v", got)
	}
}

// What a pack may hold at load: max_tool_calls from 1 to 50, and no empty
// or blank root_cause_any group.
func TestLoadExpectBounds(t *testing.T) {
	for _, tt := range []struct {
		expect string
		ok     bool
	}{
		{"max_tool_calls = 50", true},
		{"max_tool_calls = 1", true},
		{"max_tool_calls = 51", false},
		{"max_tool_calls = 0", false},
		{"max_tool_calls = -1", false},
		{`root_cause_any = [["disk"], []]`, false},
		{`root_cause_any = [[]]`, false},
		{`root_cause_any = [["disk", " "]]`, false},
	} {
		sc := goodScenario + tt.expect + "\n"
		if strings.HasPrefix(tt.expect, "root_cause_any") {
			sc = strings.Replace(goodScenario, `root_cause_any = [["disk", "space"]]`, tt.expect, 1)
		}
		p := LoadPack(writePack(t, t.TempDir(), sc, goodConfig))
		if (p.Err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok %v", tt.expect, p.Err, tt.ok)
		}
		if tt.ok && strings.HasPrefix(tt.expect, "max_tool_calls = 50") && p.Expect.MaxToolCalls != 50 {
			t.Errorf("max_tool_calls %d, want 50", p.Expect.MaxToolCalls)
		}
	}
}

// Regrade: a pack removed from the suite is not graded again (it is listed
// with an error and counted nowhere), and the summary keeps what the
// graded results measured.
func TestRegradeRemovedPack(t *testing.T) {
	prev := &Results{
		Summary: Summary{Model: ModelInfo{Name: "m", Provider: "ollama", URL: "http://x"}, SuperbizVersion: "v1", StartedAt: "2026-11-20T09:30:00Z"},
		Packs:   []PackResult{{ID: "gone", Pass: true, Outcome: "SUCCESS", RunIDs: []string{}}},
	}
	out, err := Regrade(context.Background(), prev, []*Pack{diskPack}, "/nonexistent.db")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Packs) != 1 || out.Packs[0].Error == "" || out.Summary.Graded != 0 || out.Summary.PassAt1 != (Rate{}) || out.Summary.Model != prev.Summary.Model || out.Summary.StartedAt != prev.Summary.StartedAt {
		t.Errorf("regrade %+v", out)
	}
}

// Compare: one column per file; a rate row each; a pack that fails
// differently, a pack new in the second file and one absent from the third
// are listed, a pack graded alike everywhere is not.
func TestCompare(t *testing.T) {
	fail := func(id, outcome string, checks ...string) PackResult {
		p := PackResult{ID: id, Outcome: outcome}
		for _, c := range checks {
			p.FailedChecks = append(p.FailedChecks, FailedCheck{Check: c, Why: "w"})
		}
		return p
	}
	a := &Results{Summary: Summary{Model: ModelInfo{Name: "a"}, PassAt1: RateOf(0.5)}, Packs: []PackResult{
		{ID: "same", Pass: true, Outcome: "SUCCESS"}, fail("differs", "SUCCESS", CheckRootCause), fail("outcome", "FALLBACK", CheckOutcome),
	}}
	b := &Results{Summary: Summary{Model: ModelInfo{Name: "b"}, PassAt1: RateOf(0.25), FalseSuccessRate: RateOf(1)}, Packs: []PackResult{
		{ID: "same", Pass: true, Outcome: "SUCCESS"}, fail("differs", "SUCCESS", CheckEvidence), fail("outcome", "FAILED", CheckOutcome), {ID: "new", Pass: true, Outcome: "SUCCESS"},
	}}
	c := Compare([]string{"a.json", "b.json"}, []*Results{a, b})
	if len(c.Files) != 2 || c.Files[1].Model.Name != "b" || len(c.Rates) != 5 || c.Rates[0].Name != "pass_at_1" ||
		!slices.Equal(c.Rates[0].Values, []Rate{RateOf(0.5), RateOf(0.25)}) || !slices.Equal(c.Rates[2].Values, []Rate{{}, RateOf(1)}) {
		t.Errorf("files and rates %+v", c)
	}
	var got []string
	for _, p := range c.Packs {
		got = append(got, p.ID+"="+strings.Join(p.Grades, "|"))
	}
	want := []string{
		"differs=fail: root_cause (SUCCESS)|fail: evidence (SUCCESS)",
		"outcome=fail: outcome (FALLBACK)|fail: outcome (FAILED)",
		"new=absent|pass",
	}
	if !slices.Equal(got, want) {
		t.Errorf("packs\n%q\nwant\n%q", got, want)
	}
	// A third file: its own column, and a pack it lacks differs.
	c3 := Compare([]string{"a", "b", "c"}, []*Results{b, b, {Packs: b.Packs[:3]}})
	if len(c3.Packs) != 1 || c3.Packs[0].ID != "new" || !slices.Equal(c3.Packs[0].Grades, []string{"pass", "pass", "absent"}) || len(c3.Rates[0].Values) != 3 {
		t.Errorf("three files %+v", c3)
	}
}
