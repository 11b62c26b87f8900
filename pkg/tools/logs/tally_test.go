package logs

import (
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/pkg/tools"
)

// TestTally: the matched count, with the time of the first match when the
// patterns account for every match, on the window's last day as a time of
// day in the log's own zone and with the day before it otherwise; the count
// alone when a pattern was cut or a time does not read; nothing for a
// result that is not query_logs'.
func TestTally(t *testing.T) {
	window := Window{Start: "2026-11-28T14:00:00.000Z", End: "2026-11-28T15:00:00.000Z"}
	res := func(matched int, patterns ...Pattern) string {
		b, err := tools.MarshalJSON(Result{Source: "app", Window: window, Matched: matched, Entries: []Entry{}, Patterns: append([]Pattern{}, patterns...)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	p := func(count int, first string) Pattern {
		return Pattern{Template: "t", Count: count, FirstTS: first, LastTS: "2026-11-28T14:59:00.000Z"}
	}
	for _, tc := range []struct{ name, result, want string }{
		{"every match in the patterns", res(412, p(400, "2026-11-28T14:10:03.000Z"), p(12, "2026-11-28T14:09:58.250Z")), "412 matched, first 14:09:58"},
		{"one match", res(1, p(1, "2026-11-28T14:30:00.000Z")), "1 matched, first 14:30:00"},
		{"the log's own zone", `{"matched":2,"window":{"end":"2026-11-28T23:00:00.000+08:00"},"patterns":[{"count":2,"first_ts":"2026-11-28T22:15:00.000+08:00"}]}`, "2 matched, first 22:15:00"},
		{"another day than the window's end", res(3, p(3, "2026-11-27T23:58:01.000Z")), "3 matched, first 11-27 23:58:01"},
		{"no window end", `{"matched":3,"patterns":[{"count":3,"first_ts":"2026-11-28T14:00:00Z"}]}`, "3 matched, first 11-28 14:00:00"},
		{"patterns cut: no first time", res(412, p(400, "2026-11-28T14:10:03.000Z")), "412 matched"},
		{"a first time that does not read", res(2, p(2, "14:10")), "2 matched"},
		{"no patterns", `{"matched":5}`, "5 matched"},
		{"empty result", res(0), "0 matched"},
		{"matched missing", `{"patterns":[]}`, ""},
		{"malformed", `{"matched":`, ""},
		{"not an object", `[412]`, ""},
		{"empty", ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := new(Tool).Tally(json.RawMessage(tc.result)); got != tc.want {
				t.Errorf("Tally(%s) = %q, want %q", tc.result, got, tc.want)
			}
		})
	}
}
