package release

import (
	"encoding/json"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/tools"
)

const validPublished = `{"query":"payment timeouts","conclusion":{"summary":"pool exhausted","root_cause":"slow query","confidence":"HIGH"},"findings":[{"type":"FINDING","claim":"pool 50/50","scope":"logs","sources":["query_logs"]}],"action_plan":[{"priority":"P0","step":"kill it","risk":"LOW"}],"recommendations":["index"],"limitations":{"scope":"order-service","missing_info":["gateway logs"]},"knowledge_refs":[{"doc_id":"runbooks/mysql-pool.md#pool","title":"MySQL pool","source":"runbooks/mysql-pool.md"}]}`

func TestParsePublished(t *testing.T) {
	p, err := ParsePublished([]byte(validPublished))
	if err != nil {
		t.Fatalf("valid result refused: %v", err)
	}
	if p.Conclusion.RootCause != "slow query" || p.KnowledgeRefs[0].Source != "runbooks/mysql-pool.md" || p.Findings[0].Sources[0] != "query_logs" {
		t.Fatalf("parsed = %+v", p)
	}
	bad := map[string]string{
		"corrupt":              `{"query":"x","conclusion":`,
		"not an object":        `"payment timeouts"`,
		"trailing data":        validPublished + `{}`,
		"unknown member":       strings.Replace(validPublished, `"query":`, `"tool_call_ids":["call_1"],"query":`, 1),
		"unknown nested":       strings.Replace(validPublished, `"sources":`, `"tool_call_ids":["call_1"],"sources":`, 1),
		"duplicate member":     strings.Replace(validPublished, `"query":"payment timeouts"`, `"query":"a","query":"b"`, 1),
		"wrong case":           strings.Replace(validPublished, `"query":`, `"Query":`, 1),
		"wrong type":           strings.Replace(validPublished, `"recommendations":["index"]`, `"recommendations":"index"`, 1),
		"blank query":          strings.Replace(validPublished, `"query":"payment timeouts"`, `"query":"  "`, 1),
		"null conclusion":      strings.Replace(validPublished, `{"summary":"pool exhausted","root_cause":"slow query","confidence":"HIGH"}`, `null`, 1),
		"blank summary":        strings.Replace(validPublished, `"summary":"pool exhausted"`, `"summary":""`, 1),
		"blank root cause":     strings.Replace(validPublished, `"root_cause":"slow query"`, `"root_cause":"\n"`, 1),
		"bad confidence":       strings.Replace(validPublished, `"confidence":"HIGH"`, `"confidence":"CERTAIN"`, 1),
		"bad finding type":     strings.Replace(validPublished, `"type":"FINDING"`, `"type":"GUESS"`, 1),
		"bad priority":         strings.Replace(validPublished, `"priority":"P0"`, `"priority":"P9"`, 1),
		"missing conclusion":   `{"query":"x"}`,
		"empty":                ``,
		"null":                 `null`,
		"oversize":             `{"query":"` + strings.Repeat("x", maxPublishedRaw) + `"}`,
		"invalid utf-8 string": strings.Replace(validPublished, `payment timeouts`, "payment \xff", 1),
	}
	for name, raw := range bad {
		t.Run(name, func(t *testing.T) {
			if p, err := ParsePublished([]byte(raw)); err == nil {
				t.Fatalf("accepted: %+v", p)
			}
		})
	}
}

// hugePublished is a valid result far larger than any PreviousTurn limit.
func hugePublished() *PublishedResult {
	p := &PublishedResult{
		Query:       strings.Repeat("payment <timeouts> & 超时 ", 200),
		Conclusion:  &agent.Conclusion{Summary: strings.Repeat("摘要", 500), RootCause: strings.Repeat("root\ncause ", 200), Confidence: "MEDIUM"},
		Limitations: agent.Limitations{Scope: strings.Repeat("scope ", 200)},
	}
	for i := range 20 {
		p.Findings = append(p.Findings, Finding{Type: agent.Finding, Claim: "c", Scope: strings.Repeat("s", 50) + string(rune('a'+i)), Sources: []string{"query_logs"}})
		p.Limitations.MissingInfo = append(p.Limitations.MissingInfo, strings.Repeat("m<", 200))
		p.KnowledgeRefs = append(p.KnowledgeRefs, tools.DocRef{DocID: strings.Repeat("d", 300), Title: strings.Repeat("标题", 100), Source: strings.Repeat("r", 300)})
	}
	return p
}

// A PreviousTurn always fits limits.previous_turn, deterministically, keeps
// the required fields, and is dropped rather than overflowing.
func TestPreviousTurnBounded(t *testing.T) {
	p := hugePublished()
	for _, limit := range []int{8192, 4096, 2048, 1024, 512, 300} {
		pt := p.PreviousTurn(limit)
		if pt == nil {
			t.Fatalf("limit %d: no previous turn", limit)
		}
		b, _ := json.Marshal(pt)
		if len(b) > limit {
			t.Fatalf("limit %d: previous turn has %d bytes", limit, len(b))
		}
		again, _ := json.Marshal(p.PreviousTurn(limit))
		if string(again) != string(b) {
			t.Fatalf("limit %d: not deterministic", limit)
		}
		if strings.TrimSpace(pt.Query) == "" || pt.Conclusion == nil || pt.Conclusion.Summary == "" || pt.Conclusion.Confidence != "MEDIUM" {
			t.Fatalf("limit %d: required fields lost: %s", limit, b)
		}
		if strings.Contains(pt.Conclusion.RootCause, "\n") {
			t.Fatalf("limit %d: line break kept in root cause", limit)
		}
	}
	// The documented order: knowledge refs go before missing_info.
	short := *p
	short.Limitations.MissingInfo = []string{"gateway logs", "deploy history", "redis metrics"}
	pt := short.PreviousTurn(4096)
	if len(pt.KnowledgeRefs) != 0 || len(pt.Limitations.MissingInfo) != 3 {
		t.Fatalf("refs %d, missing %d: refs must be dropped first", len(pt.KnowledgeRefs), len(pt.Limitations.MissingInfo))
	}
	// A result that already fits is passed on unchanged.
	small, err := ParsePublished([]byte(validPublished))
	if err != nil {
		t.Fatal(err)
	}
	got := small.PreviousTurn(agent.DefaultLimits().PreviousTurn)
	want := `{"query":"payment timeouts","conclusion":{"summary":"pool exhausted","root_cause":"slow query","confidence":"HIGH"},"scope":"logs","limitations":{"scope":"order-service","missing_info":["gateway logs"]},"knowledge_refs":[{"doc_id":"runbooks/mysql-pool.md#pool","title":"MySQL pool","source":"runbooks/mysql-pool.md"}]}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Fatalf("previous turn =\n%s\nwant\n%s", b, want)
	}
	// Too small a limit or an invalid result: no PreviousTurn at all.
	if pt := p.PreviousTurn(100); pt != nil {
		t.Fatalf("limit 100 gave a previous turn")
	}
	bad := *small
	bad.Query = " "
	if bad.PreviousTurn(agent.DefaultLimits().PreviousTurn) != nil {
		t.Fatalf("blank query gave a previous turn")
	}
	var none *PublishedResult
	if none.PreviousTurn(agent.DefaultLimits().PreviousTurn) != nil {
		t.Fatalf("nil result gave a previous turn")
	}
}

func TestParseVerdict(t *testing.T) {
	good := map[string]Verdict{
		`{"verdict":"SUPPORTED","reasons":[]}`:                         {Verdict: "SUPPORTED", Reasons: []string{}},
		" \n{\"reasons\":[\"a\",\"b\"],\"verdict\":\"UNSUPPORTED\"}\n": {Verdict: "UNSUPPORTED", Reasons: []string{"a", "b"}},
	}
	for in, want := range good {
		got, err := ParseVerdict(in)
		if err != nil || got.Verdict != want.Verdict || len(got.Reasons) != len(want.Reasons) {
			t.Fatalf("ParseVerdict(%q) = %+v, %v", in, got, err)
		}
	}
	bad := []string{
		``, `SUPPORTED`, `"SUPPORTED"`, "```json\n{\"verdict\":\"SUPPORTED\",\"reasons\":[]}\n```",
		`{"verdict":"SUPPORTED","reasons":[]} ok`, `{"verdict":"SUPPORTED"}`, `{"reasons":[]}`,
		`{"verdict":"supported","reasons":[]}`, `{"Verdict":"SUPPORTED","reasons":[]}`,
		`{"verdict":"SUPPORTED","verdict":"UNSUPPORTED","reasons":[]}`, `{"verdict":"SUPPORTED","reasons":[],"extra":1}`,
		`{"verdict":"SUPPORTED","reasons":null}`, `{"verdict":"SUPPORTED","reasons":[""]}`, `{"verdict":"SUPPORTED","reasons":[1]}`,
		`{"verdict":"SUPPORTED","reasons":["` + strings.Repeat("r", maxReasonBytes+1) + `"]}`,
		`{"verdict":"SUPPORTED","reasons":["1","2","3","4","5","6","7","8","9","10","11"]}`,
		"{\"verdict\":\"SUPPORTED\",\"reasons\":[\"\xff\"]}",
	}
	for _, in := range bad {
		if v, err := ParseVerdict(in); err == nil {
			t.Fatalf("ParseVerdict(%q) accepted %+v", in, v)
		}
	}
}

func TestVerdictSchema(t *testing.T) {
	var s struct {
		Type                 string         `json:"type"`
		Required             []string       `json:"required"`
		AdditionalProperties *bool          `json:"additionalProperties"`
		Properties           map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(VerdictSchema(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || len(s.Required) != 2 || s.AdditionalProperties == nil || *s.AdditionalProperties || len(s.Properties) != 2 {
		t.Fatalf("schema = %s", VerdictSchema())
	}
	if !strings.Contains(string(VerdictSchema()), `"enum":["SUPPORTED","UNSUPPORTED"]`) {
		t.Fatalf("schema lacks the verdict enum: %s", VerdictSchema())
	}
}

func TestSemanticGuardPromptLanguage(t *testing.T) {
	if p := SemanticGuardPrompt("auto", "订单服务支付超时"); !strings.Contains(p, "严格的检查者") || strings.Contains(p, "{{SCHEMA}}") {
		t.Fatalf("zh prompt not chosen or schema not filled")
	}
	if p := SemanticGuardPrompt("auto", "payment timeouts"); !strings.Contains(p, "strict checker") || !strings.Contains(p, `"UNSUPPORTED"`) {
		t.Fatalf("en prompt not chosen or schema not filled")
	}
	if p := SemanticGuardPrompt("en", "订单服务支付超时"); !strings.Contains(p, "strict checker") {
		t.Fatalf("explicit language ignored")
	}
}

func TestScrubber(t *testing.T) {
	sc := scrubber{ids: []string{"tool-7-long", "tool-7"}}
	got := sc.inline("see tool-7-long and tool-7, call_ab12cd34, call_3 and\n\x1b[31mcall_center password=hunter2", 200)
	want := "see [evidence] and [evidence], [evidence], [evidence] and call_center password=[REDACTED]"
	if got != want {
		t.Fatalf("inline =\n%q\nwant\n%q", got, want)
	}
}

// The success answer is bounded too: it is cut at a line and says so.
func TestSuccessAnswerBounded(t *testing.T) {
	d, invs := benchRun()
	for i := range d.Analysis {
		d.Analysis[i].Claim = "# " + strings.Repeat("長い主張 ", 60)
	}
	for range 10 {
		d.Recommendations = append(d.Recommendations, strings.Repeat("r", 300))
		d.Limitations.MissingInfo = append(d.Limitations.MissingInfo, strings.Repeat("m", 300))
	}
	p := buildPublished(testQuery, d, readyByID(invs, 8192), newScrubber(invs))
	for _, lang := range []string{"en", "zh"} {
		a := textsFor(lang, nil).successAnswer(p)
		if len(a) > maxSuccessAnswer || !strings.HasSuffix(a, textsFor(lang, nil).truncated) {
			t.Fatalf("%s: %d bytes, ends %q", lang, len(a), a[max(0, len(a)-80):])
		}
		if !strings.Contains(a, `**FINDING** \# 長い主張`) {
			t.Fatalf("%s: a claim starting with # is not escaped", lang)
		}
		if a != textsFor(lang, nil).successAnswer(p) {
			t.Fatalf("%s: not deterministic", lang)
		}
	}
}

// TestFindingChecks: two findings that cite the same tool are told apart by
// their check lines (tool, input summary, tally); the lines hold no Tool
// Call ID and no evidence from the results.
func TestFindingChecks(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.call("call_lg000001", "query_logs", "found pool")
		f.call("call_lg000002", "query_logs", "found gateway after call_lg000001")
		f.call("call_lg000003", "query_logs", "none deadlock")
		f.srv.Script(verdictTurn(supported))
		d := f.release(f.draftResult(draftJSON(true,
			item{agent.Finding, "the pool is exhausted", "", []string{"call_lg000001"}},
			item{agent.Finding, "the gateway times out", "", []string{"call_lg000002", "call_lg000002"}},
			item{agent.NegativeObservation, "no deadlocks", "app logs", []string{"call_lg000003"}},
		)))
		if d.Published == nil {
			t.Fatalf("not published: %s %s", d.Outcome, d.Answer)
		}
		want := [][]string{
			{"query_logs q=found pool · 42 matched"},
			{"query_logs q=found gateway after [evidence] · 42 matched"},
			{"query_logs q=none deadlock · 0 matched"},
		}
		for i, w := range want {
			if got := d.Published.Findings[i].Checks; strings.Join(got, "|") != strings.Join(w, "|") {
				t.Errorf("finding %d checks = %q, want %q", i+1, got, w)
			}
			if !strings.Contains(d.Answer, "   - Checked: `"+w[0]+"`\n") {
				t.Errorf("answer lacks the check line %q:\n%s", w[0], d.Answer)
			}
		}
		if strings.Contains(d.Answer, "17 waiting") {
			t.Errorf("raw evidence in the answer:\n%s", d.Answer)
		}
		assertNoIDs(t, d, runIDs(f.boundary.Invocations()))
	})
}
