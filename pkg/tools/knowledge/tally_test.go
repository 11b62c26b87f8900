package knowledge

import (
	stdjson "encoding/json"
	"testing"

	"github.com/superbiz/superbiz/pkg/tools"
)

// TestTally: the best section, named from its runbook's file name on, and
// its score; a long name is cut so the score still shows; "0 documents"
// when nothing matched; nothing for a result that is not
// lookup_knowledge's.
func TestTally(t *testing.T) {
	res := func(docs ...Document) string {
		b, err := tools.MarshalJSON(Result{Documents: append([]Document{}, docs...)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	doc := func(id string, score float64) Document {
		return Document{DocRef: tools.DocRef{DocID: id, Title: "t", Source: "s"}, Snippet: "x", Score: score}
	}
	long := "runbooks/en/payment-timeout.md#runbook-payment-timeouts-at-checkout-and-refunds"
	for _, tc := range []struct{ name, result, want string }{
		{"the best first", res(doc("runbooks/en/tls.md#tls-certificate-expiry", 0.82), doc("runbooks/en/disk-full.md#disk-full", 0.5)), "top: tls.md#tls-certificate-expiry (0.82)"},
		{"score to three digits", res(doc("payment-timeout.md#escalation", 2.021)), "top: payment-timeout.md#escalation (2.02)"},
		{"a Chinese anchor", res(doc("runbooks/zh/payment-timeout.md#支付超时", 3)), "top: payment-timeout.md#支付超时 (3)"},
		{"no anchor", res(doc("runbooks/en/cpu-high.md", 1.5)), "top: cpu-high.md (1.5)"},
		{"a long name is cut, the score kept", res(doc(long, 3.25)), "top: payment-timeout.md#runbook-payment-ti… (3.25)"},
		{"nothing matched", res(), "0 documents"},
		{"no score", `{"documents":[{"doc_id":"a.md#b"}]}`, ""},
		{"no doc_id", `{"documents":[{"score":1}]}`, ""},
		{"no documents member", `{}`, ""},
		{"documents null", `{"documents":null}`, ""},
		{"malformed", `{"documents":[`, ""},
		{"not an object", `[1]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := new(Tool).Tally(stdjson.RawMessage(tc.result)); got != tc.want {
				t.Errorf("Tally(%s) = %q, want %q", tc.result, got, tc.want)
			}
		})
	}
}
