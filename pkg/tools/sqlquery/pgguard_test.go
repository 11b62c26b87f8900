package sqlquery

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

// Every statement of the PostgreSQL refusal corpus is refused by the guard
// alone (NOT_READ_ONLY reasons), every credential or statement-text read is
// refused as not_allowed, and every benign diagnostic read is admitted.
func TestCheckPostgresCorpora(t *testing.T) {
	for _, q := range loadCorpus(t, "postgres/refused.sql") {
		_, err := CheckPostgres(q)
		r, ok := IsRefusal(err)
		if !ok {
			t.Errorf("admitted hostile %q", q)
			continue
		}
		if r.Reason == ReasonNotAllowed {
			t.Errorf("%q: refused as %s (%s), want a not-read-only reason", q, r.Reason, r.Detail)
		}
	}
	for _, q := range loadCorpus(t, "postgres/not_allowed.sql") {
		_, err := CheckPostgres(q)
		r, ok := IsRefusal(err)
		if !ok || r.Reason != ReasonNotAllowed {
			t.Errorf("%q: got %v, want a not_allowed refusal", q, err)
		}
	}
	for _, q := range loadCorpus(t, "postgres/admitted.sql") {
		out, err := CheckPostgres(q)
		if err != nil {
			t.Errorf("refused benign %q: %v", q, err)
			continue
		}
		// The deparse is itself admitted, to the same text.
		again, err := CheckPostgres(out)
		if err != nil || again != out {
			t.Errorf("%q: deparse %q re-checks to %q, %v", q, out, again, err)
		}
	}
}

// TestCheckPostgresFigures records the guard's figure for the reliability
// report: hostile statements tried and admitted, benign ones admitted.
func TestCheckPostgresFigures(t *testing.T) {
	hostile := append(loadCorpus(t, "postgres/refused.sql"), loadCorpus(t, "postgres/not_allowed.sql")...)
	benign := loadCorpus(t, "postgres/admitted.sql")
	admitted, benignAdmitted := 0, 0
	for _, q := range hostile {
		if _, err := CheckPostgres(q); err == nil {
			admitted++
		}
	}
	for _, q := range benign {
		if _, err := CheckPostgres(q); err == nil {
			benignAdmitted++
		}
	}
	reliability.Record(t, reliability.SectionSQL, "guard, postgres", map[string]any{
		"tried": len(hostile), "admitted": admitted, "refused": len(hostile) - admitted,
		"benign_tried": len(benign), "benign_admitted": benignAdmitted,
	})
	if admitted != 0 || benignAdmitted != len(benign) {
		t.Fatalf("admitted %d of %d hostile, %d of %d benign", admitted, len(hostile), benignAdmitted, len(benign))
	}
}

func TestCheckPostgresReasons(t *testing.T) {
	tests := []struct {
		sql  string
		want Reason
		in   string
	}{
		{"", ReasonEmpty, ""},
		{strings.Repeat("x", MaxSQLBytes+1), ReasonTooLong, ""},
		{"SELECT 1\x00", ReasonUnparsable, "NUL"},
		{"SELEC 1", ReasonUnparsable, "syntax error"},
		{"SELECT 1; SELECT 2", ReasonUnparsable, "exactly one statement"},
		{"DELETE FROM orders", ReasonStatementKind, "DELETE"},
		{"SELECT * FROM orders FOR UPDATE", ReasonLock, "locking"},
		{"SELECT * INTO x FROM orders", ReasonInto, "INTO"},
		{"EXPLAIN ANALYZE SELECT 1", ReasonExplainKind, "ANALYZE"},
		{"EXPLAIN DELETE FROM orders", ReasonExplainKind, "DELETE"},
		{"EXPLAIN (VERBOSE 1) SELECT 1", ReasonNotAllowed, "EXPLAIN VERBOSE"},
		{"SELECT nextval('s')", ReasonFunction, "nextval"},
		{"SELECT public.lower(1)", ReasonFunction, "public.lower"},
		{"SELECT 1 OPERATOR(public.===) 1", ReasonFunction, "public.==="},
		{"SELECT 'x'::public.t", ReasonConstruct, "public.t"},
		{"SELECT $1", ReasonConstruct, "bind"},
		{"WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", ReasonStatementKind, "data-modifying"},
		{"SELECT query FROM pg_stat_activity", ReasonNotAllowed, "query"},
		{"SELECT a.to_json FROM pg_stat_activity a", ReasonNotAllowed, "whole row"},
		{"SELECT rolname FROM pg_authid", ReasonNotAllowed, "password"},
		{"SELECT pg_get_viewdef('v')", ReasonNotAllowed, "bodies"},
		// A restricted column says once what it holds (it said "holds holds").
		{"SELECT umoptions FROM pg_user_mappings", ReasonNotAllowed, "column umoptions of pg_user_mappings holds stored connection options"},
		{"SELECT most_common_vals FROM pg_stats", ReasonNotAllowed, "of pg_stats holds sampled column values"},
		{"SELECT * FROM pg_stats", ReasonNotAllowed, "(sampled column values"},
		{"SELECT umuser FROM pg_user_mapping", ReasonNotAllowed, "pg_user_mapping holds stored connection options"},
	}
	for _, tt := range tests {
		_, err := CheckPostgres(tt.sql)
		r, ok := IsRefusal(err)
		if !ok || r.Reason != tt.want || !strings.Contains(r.Detail, tt.in) {
			t.Errorf("%.40q: got %v, want %s containing %q", tt.sql, err, tt.want, tt.in)
		}
	}
}

// FuzzCheckPostgres: CheckPostgres never panics and returns only refusals
// as errors; whatever it admits deparses to a statement it admits again, of
// the same kind, to the same text, and with the row-cap LIMIT still admitted.
func FuzzCheckPostgres(f *testing.F) {
	for _, name := range []string{"postgres/refused.sql", "postgres/not_allowed.sql", "postgres/admitted.sql"} {
		for _, q := range loadCorpus(f, name) {
			f.Add(q)
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		c, err := checkPostgres(sql)
		if err != nil {
			if _, ok := IsRefusal(err); !ok {
				t.Fatalf("%q: non-refusal error %v", sql, err)
			}
			return
		}
		again, err := checkPostgres(c.Rendered)
		if err != nil {
			t.Fatalf("deparse %q of %q is refused: %v", c.Rendered, sql, err)
		}
		if again.Kind != c.Kind || again.Rendered != c.Rendered {
			t.Fatalf("not stable: %q (%s) -> %q (%s)", c.Rendered, c.Kind, again.Rendered, again.Kind)
		}
		text, err := pgExecutable(c, DefaultMaxRows)
		if err != nil {
			t.Fatalf("executable of %q: %v", c.Rendered, err)
		}
		if _, err := checkPostgres(text); err != nil {
			t.Fatalf("executable %q of %q is refused: %v", text, sql, err)
		}
	})
}

func BenchmarkCheckPostgres(b *testing.B) {
	q := "SELECT o.id, c.name, o.amount_cents FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' AND o.created_at > now() - interval '1 hour' ORDER BY o.created_at DESC"
	for b.Loop() {
		if _, err := CheckPostgres(q); err != nil {
			b.Fatal(err)
		}
	}
}
