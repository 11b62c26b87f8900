package sqlquery

import (
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/pkg/tools"
)

// TestTally: how many rows the statement returned, singular for one;
// nothing for a result that is not query_mysql's or query_postgres'.
func TestTally(t *testing.T) {
	res := func(n int) string {
		rows := make([][]any, 0, n)
		for i := range n {
			rows = append(rows, []any{i})
		}
		b, err := tools.MarshalJSON(Result{Database: "orders", Columns: []string{"id"}, Rows: rows, RowCount: n})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct{ name, result, want string }{
		{"rows", res(3), "3 rows"},
		{"one row", res(1), "1 row"},
		{"empty result", res(0), "0 rows"},
		{"row_count missing", `{"rows":[]}`, ""},
		{"malformed", `{"row_count":3`, ""},
		{"not an object", `[3]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := new(Tool).Tally(json.RawMessage(tc.result)); got != tc.want {
				t.Errorf("Tally(%s) = %q, want %q", tc.result, got, tc.want)
			}
		})
	}
}
