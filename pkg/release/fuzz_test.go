package release

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// FuzzParsePublished: stored JSON is untrusted; whatever it holds, the parser
// never panics, and an accepted result always yields a PreviousTurn that is
// nil or fits the limit.
func FuzzParsePublished(f *testing.F) {
	f.Add([]byte(validPublished))
	f.Add([]byte(`{"query":"q","conclusion":{"summary":"s","root_cause":"r","confidence":"LOW"}}`))
	f.Add([]byte(`{"query":"q","conclusion":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParsePublished(raw)
		if err != nil {
			return
		}
		if strings.TrimSpace(p.Query) == "" || p.Conclusion == nil || strings.TrimSpace(p.Conclusion.Summary) == "" {
			t.Fatalf("accepted without required fields: %+v", p)
		}
		for _, limit := range []int{8192, 512} {
			if pt := p.PreviousTurn(limit); pt != nil {
				if b, _ := json.Marshal(pt); len(b) > limit {
					t.Fatalf("previous turn of %d bytes exceeds %d", len(b), limit)
				}
			}
		}
	})
}

// FuzzParseVerdict: the guard model's answer is untrusted; an accepted
// verdict is always in its enum and within its bounds.
func FuzzParseVerdict(f *testing.F) {
	f.Add(`{"verdict":"SUPPORTED","reasons":[]}`)
	f.Add(`{"verdict":"UNSUPPORTED","reasons":["claim 1 is not in the logs"]}`)
	f.Add("```json\n{\"verdict\":\"SUPPORTED\",\"reasons\":[]}\n```")
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseVerdict(text)
		if err != nil {
			return
		}
		if v.Verdict != runrecord.VerdictSupported && v.Verdict != runrecord.VerdictUnsupported {
			t.Fatalf("verdict %q accepted", v.Verdict)
		}
		if len(v.Reasons) > maxReasons {
			t.Fatalf("%d reasons accepted", len(v.Reasons))
		}
		for _, r := range v.Reasons {
			if strings.TrimSpace(r) == "" || len(r) > maxReasonBytes {
				t.Fatalf("reason %q accepted", r)
			}
		}
	})
}
