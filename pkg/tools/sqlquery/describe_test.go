package sqlquery

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
)

// TestSQLDescriptionMatchesGuard: what the sql member's description tells
// the model is what the guard does: each clause is in the description and
// a statement it names gets the guard's verdict it promises.
func TestSQLDescriptionMatchesGuard(t *testing.T) {
	prop, ok := schema.Reflect(input{}).Properties.Get("sql")
	if !ok {
		t.Fatal("no sql member")
	}
	desc := prop.Description
	for _, tt := range []struct {
		clause, sql string
		d           Dialect
		admitted    bool
	}{
		{"a comment before or after it is dropped", "/* why */ SELECT 1 -- done", MySQL, true},
		{"none inside it", "SELECT /* why */ 1", MySQL, false},
		{"no optimizer hints", "SELECT /*+ MAX_EXECUTION_TIME(1) */ 1", MySQL, false},
		{"no user variables (@x) or assignments", "SELECT @x", MySQL, false},
		{"system variables (@@max_connections) only on MySQL/MariaDB", "SELECT @@max_connections", MariaDB, true},
		{"system variables (@@max_connections) only on MySQL/MariaDB", "SELECT @@max_connections", SQLite, false},
		{"none named like a secret", "SELECT @@global.server_audit_password", MySQL, false},
		{"no locking reads", "SELECT id FROM orders FOR UPDATE", MySQL, false},
		{"no credential tables (mysql.user)", "SELECT * FROM mysql.user", MySQL, false},
		{"stored routine, view, trigger or event bodies", "SELECT routine_definition FROM information_schema.routines", MySQL, false},
	} {
		if !strings.Contains(desc, tt.clause) {
			t.Errorf("the sql description lacks %q:\n%s", tt.clause, desc)
		}
		_, err := Check(tt.sql, tt.d, "shop")
		if got := err == nil; got != tt.admitted {
			t.Errorf("%s on %v: admitted %v (%v), the description promises %v", tt.sql, tt.d, got, err, tt.admitted)
		}
	}
}
