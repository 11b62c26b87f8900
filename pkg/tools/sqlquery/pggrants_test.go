package sqlquery

import (
	"strings"
	"testing"
)

// The write warning lists the writable tables it was given and says "…"
// only when the role can write more tables than are listed.
func TestPostgresRightsWritableList(t *testing.T) {
	for _, tt := range []struct {
		rights PostgresRights
		want   string
		more   bool
	}{
		{PostgresRights{WritableTables: 2, Writable: []string{"public.a", "public.b"}}, "on 2 table(s) (public.a, public.b)", false},
		{PostgresRights{WritableTables: 3, Writable: []string{"public.a", "public.b"}}, "on 3 table(s) (public.a, public.b, …)", true},
	} {
		w := tt.rights.Warnings()
		if len(w) != 1 || !strings.Contains(w[0], tt.want) || strings.Contains(w[0], "…") != tt.more {
			t.Errorf("%+v: %q, want one warning with %q", tt.rights, w, tt.want)
		}
	}
	if w := (PostgresRights{}).Warnings(); len(w) != 0 {
		t.Errorf("a read-only role: %q", w)
	}
}
