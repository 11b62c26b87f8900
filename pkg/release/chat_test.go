package release

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// lookupOf is a completed lookup_knowledge invocation that returned docs.
func lookupOf(t testing.TB, id string, docs ...tools.DocRef) harness.Invocation {
	t.Helper()
	obs, err := json.Marshal(map[string]any{"tool_call_id": id, "result": map[string]any{"documents": docs}})
	if err != nil {
		t.Fatal(err)
	}
	return harness.Invocation{
		Tool: knowledgeTool, ToolCallID: id, Kind: runrecord.KindEvidence, Status: harness.StatusCompleted,
		EvidenceStatus: tools.EvidenceFound, Observation: obs,
	}
}

func TestCheckKnowledgeReferences(t *testing.T) {
	returned := map[string]bool{"a": true, "b": true}
	item := func(id string, docs ...string) KnowledgeItem {
		return KnowledgeItem{Text: "t", ToolCallID: id, DocIDs: docs}
	}
	cases := []struct {
		name  string
		items []KnowledgeItem
		ok    bool
	}{
		{"exact", []KnowledgeItem{item("call_1", "a"), item("call_1", "b", "a")}, true},
		{"other call", []KnowledgeItem{item("call_2", "a")}, false},
		{"empty call", []KnowledgeItem{item("", "a")}, false},
		{"unknown doc", []KnowledgeItem{item("call_1", "a", "c")}, false},
		{"doc of another case", []KnowledgeItem{item("call_1", "A")}, false},
	}
	for _, tc := range cases {
		err := CheckKnowledgeReferences(KnowledgeAnswer{Items: tc.items}, "call_1", returned)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrUnknownReference)) {
			t.Errorf("%s: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestKnowledgeAnswerMarkdown(t *testing.T) {
	docs := []tools.DocRef{
		{DocID: "d1", Title: "MySQL pool › Symptoms [beta]", Source: "runbooks/mysql pool.md"},
		{DocID: "d2", Title: "Redis", Source: "runbooks/redis.md"},
	}
	a := KnowledgeAnswer{Items: []KnowledgeItem{
		{Text: "Pool exhausted per call_1 and call_ab12cd34.\nSecond line.", ToolCallID: "call_1", DocIDs: []string{"d1", "d1", "d2"}},
		{Text: "call_1", ToolCallID: "call_1", DocIDs: []string{"d2"}},
	}, Limitations: []string{"No sizing advice."}}
	md, ok := enTexts().knowledgeAnswer(a, docs, lookupScrubber("call_1"))
	want := "- Pool exhausted per and . Second line. ([MySQL pool › Symptoms \\[beta\\]](<runbooks/mysql pool.md>); [Redis](runbooks/redis.md))\n\n**Limitations**\n\n- No sizing advice.\n"
	if !ok || md != want {
		t.Errorf("markdown =\n%q\nwant\n%q", md, want)
	}
	if _, ok := enTexts().knowledgeAnswer(KnowledgeAnswer{Items: []KnowledgeItem{{Text: "call_1", ToolCallID: "call_1", DocIDs: []string{"d2"}}}}, docs, lookupScrubber("call_1")); ok {
		t.Error("an answer with nothing left to show was accepted")
	}
}

// TestChatKnowledgeOutcomes: what a KNOWLEDGE_QUERY publishes for each
// lookup result and answer.
func TestChatKnowledgeOutcomes(t *testing.T) {
	c := ChatFor("en", "")
	lookup := lookupOf(t, "call_1", tools.DocRef{DocID: "a", Title: "Pool", Source: "runbooks/pool.md"})
	none := lookup
	none.EvidenceStatus, none.Observation = tools.NoEvidence, json.RawMessage(`{"result":{"documents":[]}}`)
	big := lookup
	big.EvidenceStatus, big.ErrorCode = tools.StatusError, tools.CodeInvalidInput
	broken := lookup
	broken.EvidenceStatus, broken.ErrorCode = tools.StatusError, tools.CodeUnavailable
	refused := lookup
	refused.Status = harness.StatusRefused
	empty := lookupOf(t, "call_1")
	for _, tc := range []struct {
		name    string
		inv     harness.Invocation
		stop    runrecord.StopReason
		proceed bool
		outcome runrecord.Outcome
		reason  runrecord.StopReason
	}{
		{"evidence found", lookup, "", true, "", ""},
		{"no evidence is the fixed fallback", none, "", false, runrecord.OutcomeFallback, runrecord.StopNoConclusion},
		{"query too long", big, "", false, runrecord.OutcomeFailed, runrecord.StopInputRejected},
		{"tool error", broken, "", false, runrecord.OutcomeFailed, runrecord.StopInternal},
		{"refused by the boundary", refused, runrecord.StopToolBudget, false, runrecord.OutcomeFailed, runrecord.StopToolBudget},
		{"refused without a stop", refused, "", false, runrecord.OutcomeFailed, runrecord.StopInternal},
		{"found without documents", empty, "", false, runrecord.OutcomeFailed, runrecord.StopInternal},
	} {
		d, proceed := c.KnowledgeLookup(tc.inv, tc.stop)
		if proceed != tc.proceed || (!proceed && (d.Outcome != tc.outcome || d.StopReason != tc.reason)) {
			t.Errorf("%s: %v, %+v; want proceed=%v %s %s", tc.name, proceed, d, tc.proceed, tc.outcome, tc.reason)
		}
	}

	ok := c.Knowledge(KnowledgeAnswer{Items: []KnowledgeItem{{Text: "Pool is full.", ToolCallID: "call_1", DocIDs: []string{"a"}}}}, lookup)
	if ok.Outcome != runrecord.OutcomeSuccess || len(ok.Reviews) != 1 || ok.Reviews[0].Guard != runrecord.GuardKnowledge || ok.Reviews[0].Verdict != runrecord.VerdictPass {
		t.Errorf("supported answer: %+v", ok)
	}
	bad := c.Knowledge(KnowledgeAnswer{Items: []KnowledgeItem{{Text: "Pool is full.", ToolCallID: "call_1", DocIDs: []string{"made-up"}}}}, lookup)
	if bad.Outcome != runrecord.OutcomeFailed || bad.StopReason != runrecord.StopGuardRejected || strings.Contains(bad.Answer, "Pool is full") ||
		len(bad.Reviews) != 1 || bad.Reviews[0].Verdict != runrecord.VerdictReject || len(reasonsOf(t, bad.Reviews[0])) != 1 {
		t.Errorf("fabricated reference: %+v", bad)
	}
}

// TestPublishedTextsShareOneEscaping: every line of words that are not
// fixed is escaped by the same rule whichever path publishes it; the chat
// failure line and the knowledge answer's items once were not.
func TestPublishedTextsShareOneEscaping(t *testing.T) {
	const msg = "# the model server said no"
	const escaped = `\# the model server said no`
	for name, answer := range map[string]string{
		"chat failure":      ChatFor("en", "").Failed(runrecord.StopInternal, msg).Answer,
		"chat failure (zh)": ChatFor("zh", "").Failed(runrecord.StopInternal, msg).Answer,
		"diagnosis failure": enTexts().failedAnswer(runrecord.StopInternal, msg),
	} {
		if !strings.Contains(answer, escaped) {
			t.Errorf("%s does not escape the message:\n%s", name, answer)
		}
	}

	lookup := lookupOf(t, "call_1", tools.DocRef{DocID: "a", Title: "Pool", Source: "runbooks/pool.md"})
	d := ChatFor("en", "").Knowledge(KnowledgeAnswer{
		Items:       []KnowledgeItem{{Text: "# Heading", ToolCallID: "call_1", DocIDs: []string{"a"}}},
		Limitations: []string{"> quoted", "| a | b |"},
	}, lookup)
	for _, want := range []string{"- \\# Heading (", "- \\> quoted\n", "- \\| a | b |\n"} {
		if !strings.Contains(d.Answer, want) {
			t.Errorf("knowledge answer lacks %q:\n%s", want, d.Answer)
		}
	}
	// The diagnosis escapes the same lines the same way.
	s := harness.ProgressSnapshot{}
	fb := enTexts().fallbackAnswer(runrecord.StopNoConclusion, s, &agent.Limitations{MissingInfo: []string{"> quoted"}}, newScrubber(nil), "")
	if !strings.Contains(fb, "- \\> quoted\n") {
		t.Errorf("diagnosis fallback does not escape a missing-info line:\n%s", fb)
	}
}

// TestRunbookTitleSameInBothPaths: a runbook title with Markdown
// metacharacters reads the same in a diagnosis's references and in a
// knowledge answer's link, and opens no link or heading of its own.
func TestRunbookTitleSameInBothPaths(t *testing.T) {
	const title = `# Pool [beta](http://evil.example) \ notes`
	const want = `\# Pool \[beta\](http://evil.example) \\ notes`

	p := &PublishedResult{
		Query:         "q",
		Conclusion:    &agent.Conclusion{Summary: "s", RootCause: "r", Confidence: "HIGH"},
		KnowledgeRefs: []tools.DocRef{{DocID: "a", Title: title, Source: "runbooks/pool.md"}},
	}
	diagnosis := enTexts().successAnswer(p)
	if !strings.Contains(diagnosis, "- "+want+" (`runbooks/pool.md`)\n") {
		t.Errorf("diagnosis references:\n%s\nwant the title as %s", diagnosis, want)
	}

	lookup := lookupOf(t, "call_1", tools.DocRef{DocID: "a", Title: title, Source: "runbooks/pool.md"})
	knowledge := ChatFor("en", "").Knowledge(KnowledgeAnswer{Items: []KnowledgeItem{{Text: "Pool is full.", ToolCallID: "call_1", DocIDs: []string{"a"}}}}, lookup).Answer
	if !strings.Contains(knowledge, "["+want+"](runbooks/pool.md)") {
		t.Errorf("knowledge answer:\n%s\nwant the title as %s", knowledge, want)
	}
}

// TestChatTextTables: the chat texts exist in every language, translated,
// with the same stop reasons.
func TestChatTextTables(t *testing.T) {
	en, zh := reflect.ValueOf(enTexts().chat), reflect.ValueOf(zhTexts().chat)
	for i := range en.NumField() {
		name := en.Type().Field(i).Name
		switch e, z := en.Field(i), zh.Field(i); e.Kind() {
		case reflect.String:
			if e.String() == "" || z.String() == "" || e.String() == z.String() {
				t.Errorf("chat.%s: en %q, zh %q", name, e.String(), z.String())
			}
		case reflect.Map:
			ek, zk := mapKeys(e), mapKeys(z)
			if !slices.Equal(ek, zk) || len(ek) == 0 {
				t.Errorf("chat.%s: en reasons %v, zh reasons %v", name, ek, zk)
			}
		default:
			t.Errorf("chat.%s: unexpected kind %s", name, e.Kind())
		}
	}
}

// mapKeys lists a text map's stop reasons, sorted.
func mapKeys(m reflect.Value) []string {
	var keys []string
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	return keys
}

// FuzzKnowledgeAnswer: the model's item text and a runbook's title and
// source are untrusted; the rendered answer never shows a Tool Call ID,
// keeps one line per item and limitation, escapes each line's start, and is
// bounded.
func FuzzKnowledgeAnswer(f *testing.F) {
	f.Add("Pool exhausted (see call_1).", "# not a heading", "Pool [beta]", "runbooks/a b.md")
	f.Add("> quote\nline", "call_ab12cd34", `\]\[`, "<x>")
	f.Fuzz(func(t *testing.T, text, limitation, title, source string) {
		lookup := lookupOf(t, "call_1", tools.DocRef{DocID: "a", Title: title, Source: source})
		a := KnowledgeAnswer{
			Items:       []KnowledgeItem{{Text: text, ToolCallID: "call_1", DocIDs: []string{"a"}}},
			Limitations: []string{limitation},
		}
		d := ChatFor("en", "").Knowledge(a, lookup)
		if d.Outcome != runrecord.OutcomeSuccess {
			return
		}
		if model.ReplaceToolCallIDs(d.Answer, "") != d.Answer || strings.Contains(d.Answer, "call_1") {
			t.Fatalf("answer shows a Tool Call ID: %q", d.Answer)
		}
		if n := len(d.Answer); n > MaxKnowledgeItemBytes+2*maxRefField+maxDocSource+MaxLimitationBytes+64 {
			t.Fatalf("answer of %d bytes", n)
		}
		for _, line := range strings.Split(strings.TrimSuffix(d.Answer, "\n"), "\n") {
			if rest, ok := strings.CutPrefix(line, "- "); ok && rest != "" && strings.ContainsRune("#>|=", rune(rest[0])) {
				t.Fatalf("unescaped line %q", line)
			}
		}
		if lines := strings.Count(d.Answer, "\n"); lines > 5 {
			t.Fatalf("%d lines for one item and one limitation: %q", lines, d.Answer)
		}
	})
}

// TestAuditFailed: a run whose audit could not be stored fails as an
// internal error saying so, keeps its checks and publishes nothing.
func TestAuditFailed(t *testing.T) {
	in := Decision{Outcome: runrecord.OutcomeSuccess, Published: &PublishedResult{}, Checks: []runrecord.Check{{Tool: "query_logs"}}}
	for _, tc := range []struct {
		full bool
		want string
	}{
		{false, "## Failed\n\nThe run failed: the run's audit could not be written to the run store (`INTERNAL_ERROR`).\n"},
		{true, "## Failed\n\nThe run failed: the run's audit could not be written to the run store: the disk holding it is full (`INTERNAL_ERROR`).\n"},
	} {
		d := AuditFailed(in, tc.full)
		if d.Outcome != runrecord.OutcomeFailed || d.StopReason != runrecord.StopInternal || d.Published != nil ||
			d.Answer != tc.want || len(d.Checks) != 1 || d.ErrorCode != "INTERNAL_ERROR" {
			t.Errorf("full=%v: %+v", tc.full, d)
		}
	}
}

// Dropping Tool Call IDs (knowledge answers) never leaves one behind: not
// where removing one ID joins its neighbours into another, nor where a
// control character split an ID until it was stripped.
func TestLookupScrubberLeavesNoID(t *testing.T) {
	sc := lookupScrubber("call_1")
	for _, in := range []string{
		"see call_0acall_1000000 for it",
		"see call_0acall_9000000 for it",
		"limit call_0a00\x110000",
	} {
		got := sc.inline(in, 200)
		if model.ReplaceToolCallIDs(got, "") != got || strings.Contains(got, "call_1") {
			t.Errorf("inline(%q) = %q still shows a Tool Call ID", in, got)
		}
	}
}

// The caller's hints follow the chat texts where they point somewhere; a
// Chat without hints names no program at all.
func TestChatHints(t *testing.T) {
	lookupFailed := harness.Invocation{Status: harness.StatusCompleted, EvidenceStatus: tools.StatusError, ErrorCode: tools.CodeUnavailable}
	noMatch := harness.Invocation{Status: harness.StatusCompleted, EvidenceStatus: tools.NoEvidence}
	rc, err := harness.NewRunContext(context.Background(), harness.RunOptions{SessionID: "s_test", RunID: "r_test", Budget: harness.DefaultBudget()})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Release()
	answers := func(c Chat) map[string]string {
		failed, _ := c.KnowledgeLookup(lookupFailed, "")
		none, _ := c.KnowledgeLookup(noMatch, "")
		return map[string]string{
			"stopped":   c.Stopped(runrecord.StopInternal).Answer,
			"model":     c.ModelFailure(rc, &model.Error{Kind: model.ErrUnreachable, Host: "h"}).Answer,
			"routing":   c.RoutingFailed(rc, runrecord.StopRoutingFailed, nil).Answer,
			"missing":   c.KnowledgeMissing().Answer,
			"failed":    failed.Answer,
			"not found": none.Answer,
		}
	}
	want := map[string]string{
		"stopped": "see its audit record with `app runs show` (`INTERNAL_ERROR`)", "model": ". Check it with `app doctor` (`MODEL_UNAVAILABLE`)",
		"routing": "in two attempts. Try again (`ROUTING_UNAVAILABLE`)", "missing": "not configured (set `app --runbooks`) (`INTERNAL_ERROR`)",
		"failed": "failed (UNAVAILABLE). Check `app --runbooks` (`INTERNAL_ERROR`)", "not found": "error message), or add runbooks with `app --runbooks`.\n",
	}
	for name, a := range answers(ChatFor("en", "").WithHints(testHints)) {
		if !strings.Contains(a, want[name]) {
			t.Errorf("%s with hints:\n%s\nwant it to contain %q", name, a, want[name])
		}
	}
	for name, a := range answers(ChatFor("en", "")) {
		if strings.Contains(a, "app") || strings.Contains(a, "superbiz") {
			t.Errorf("%s without hints names a program:\n%s", name, a)
		}
	}
}
