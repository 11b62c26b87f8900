package sqlquery

import (
	"testing"

	"github.com/superbiz/superbiz/pkg/egress"
)

// TestRefusalsPassTheDoorUnchanged: a refusal is our own text, stored as it
// was shown (a tool step's detail) and shown again from the store (runs
// show, tools call's verdict, MCP): passing the egress policy once more must
// not change it, or a person reads "which can hold credentials: [REDACTED]
// it is not allowed" (issue 34 item 19). Every refusal of every corpus is
// checked, in every dialect.
func TestRefusalsPassTheDoorUnchanged(t *testing.T) {
	check := func(dialect, q string, err error) {
		r, ok := IsRefusal(err)
		if !ok {
			return
		}
		if text := r.Error(); egress.Mask(text).String() != text {
			t.Errorf("%s %.60q: the refusal changes through the door:\n  %s\n  %s", dialect, q, text, egress.Mask(text))
		}
	}
	for _, name := range []string{"refused.sql", "not_allowed.sql", "admitted.sql"} {
		for _, q := range loadCorpus(t, name) {
			for _, d := range []Dialect{MySQL, MariaDB, SQLite} {
				_, err := Check(q, d, "shop")
				check(d.String(), q, err)
			}
		}
	}
	for _, name := range []string{"postgres/refused.sql", "postgres/not_allowed.sql", "postgres/admitted.sql", "postgres/leaks.sql", "postgres/server_refused.sql"} {
		for _, q := range loadCorpus(t, name) {
			_, err := CheckPostgres(q)
			check("postgres", q, err)
		}
	}
}
