package sqlquery

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/egress"
)

// sqliteViewTool is query_mysql on a new SQLite file holding
// testdata/sqlite/views.sql.
func sqliteViewTool(t *testing.T) *Tool {
	t.Helper()
	path := filepath.Join(t.TempDir(), "views.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range loadCorpus(t, "sqlite/views.sql") {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("fixture %q: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	tool, err := New([]Database{{Name: "shop", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, path), MaxRows: 50, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	return tool
}

// The view-rename leak on SQLite (issue 34): a view that renames or
// computes from a secret-named column, directly, through other views,
// column lists, stars, unions, JSON functions, sub-selects, derived tables,
// CTEs, joins and SQLite's quoted identifiers, returns no planted secret.
func TestSQLiteViewLeakCorpus(t *testing.T) {
	corpus := loadCorpus(t, "sqlite/leaks.sql")
	answered, leaked := corpusLeaks(t, sqliteViewTool(t), corpus, myFindCanary, "the answer")
	if answered != len(corpus) {
		t.Errorf("only %d of %d statements answered: the corpus tests masking, not refusals", answered, len(corpus))
	}
	reliability.Record(t, reliability.SectionSQL, "sqlite view leak corpus", map[string]any{
		"tried": len(corpus), "answered": answered, "leaked": leaked,
	})
}

// A view's body decides: its other columns stay in clear, a count of a
// secret is no secret, a star over a plain table keeps clear columns clear,
// and a body the parser cannot read is masked whole with a note saying so.
func TestSQLiteViewBodyDecides(t *testing.T) {
	tool := sqliteViewTool(t)
	rows := func(t *testing.T, q string) Result {
		t.Helper()
		out := execute(t, tool, q, 10)
		res, ok := out.Result.(Result)
		if out.Detail != nil || !ok || len(res.Rows) == 0 {
			t.Fatalf("%q: %s/%s (%v) %+v", q, out.Status, out.ErrorCode, out.Detail, out.Result)
		}
		return res
	}
	for _, tc := range []struct {
		q            string
		masked, kept []int
	}{
		{"SELECT id, pw, name FROM v_rename ORDER BY id", []int{1}, []int{0, 2}},
		{"SELECT n, top FROM v_counts", nil, []int{0, 1}},
		{"SELECT who, total FROM v_join ORDER BY order_id", []int{0}, []int{1}},
		{"SELECT id, name, note FROM v_clean ORDER BY id", nil, []int{0, 1, 2}},
		{"SELECT id, name FROM v_star ORDER BY id", nil, []int{0, 1}},
		{"SELECT * FROM v_star_join", []int{1, 4}, []int{0, 2, 3, 5}},
		{"SELECT id, shade, tint FROM `v quoted` ORDER BY id", []int{1, 2}, []int{0}},
		{"SELECT id, hue FROM v_comment ORDER BY id", []int{1}, []int{0}},
	} {
		res := rows(t, tc.q)
		for _, i := range tc.masked {
			if res.Rows[0][i] != egress.Marker {
				t.Errorf("%q: column %s in clear: %+v", tc.q, res.Columns[i], res.Rows)
			}
		}
		for _, i := range tc.kept {
			if res.Rows[0][i] == egress.Marker {
				t.Errorf("%q: column %s masked: %+v", tc.q, res.Columns[i], res.Rows)
			}
		}
		if res.Note != "" {
			t.Errorf("%q: note %q for a body that was read", tc.q, res.Note)
		}
	}
}

// A view whose body the parser cannot read has every column masked, and the
// answer's note names the view and why.
func TestSQLiteViewUnreadableBody(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE t (id INTEGER, label TEXT)",
		"INSERT INTO t VALUES (1, 'plain')",
		"CREATE VIEW odd AS SELECT id, label FROM t WHERE label GLOB 'p*'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	tool, err := New([]Database{{Name: "odd", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, path), MaxRows: 5, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	out := execute(t, tool, "SELECT id, label FROM odd", 5)
	res, ok := out.Result.(Result)
	if out.Detail != nil || !ok || len(res.Rows) != 1 {
		t.Fatalf("%s/%s (%v) %+v", out.Status, out.ErrorCode, out.Detail, out.Result)
	}
	if res.Rows[0][0] != egress.Marker || res.Rows[0][1] != egress.Marker || !strings.Contains(res.Note, "main.odd") || !strings.Contains(res.Note, "parser") {
		t.Errorf("an unreadable body is masked whole, with a note: %+v", res)
	}
}

func TestSQLiteViewSelect(t *testing.T) {
	tests := []struct {
		create, want string
		ok           bool
	}{
		{"CREATE VIEW v AS SELECT a FROM t", "SELECT a FROM t", true},
		{"CREATE VIEW v(x, y) AS SELECT a, b FROM t", "SELECT a, b FROM t", true},
		{"CREATE VIEW IF NOT EXISTS \"as\" (\"as\") AS SELECT \"pass\"\"word\" AS [x y] FROM `t`", "SELECT `pass\"word` AS `x y` FROM `t`", true},
		{"CREATE VIEW v AS SELECT 'it''s \"x\"' AS s", "SELECT 'it''s \"x\"' AS s", true},
		{"CREATE VIEW v /* AS */ -- AS\n AS SELECT a", "SELECT a", true},
		{"CREATE VIEW v AS SELECT a /* open", "SELECT a", true},
		{"CREATE VIEW v AS SELECT a /**/, password FROM t", "SELECT a  , password FROM t", true},
		// A view's name ending in "as" is one word whatever its other bytes
		// (the ends of each range of sqliteWordByte), not the AS keyword.
		{"CREATE VIEW v0as AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW v9as AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW aAS AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW zAS AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW Aas AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW Zas AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW \u00c0as AS SELECT 1", "SELECT 1", true},
		{"CREATE VIEW v AS SELECT `a``b` FROM t", "SELECT `a``b` FROM t", true},
		{"CREATE VIEW v AS SELECT 'open", "", false},
		{"CREATE VIEW v AS SELECT \"open", "", false},
		{"CREATE VIEW v SELECT a", "", false},
	}
	for _, tc := range tests {
		got, ok := sqliteViewSelect(tc.create)
		if got != tc.want || ok != tc.ok {
			t.Errorf("sqliteViewSelect(%q) = %q, %v; want %q, %v", tc.create, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSQLiteColumnBase(t *testing.T) {
	for in, want := range map[string]string{":1": "", "pw": "pw", "pw:1": "pw", "pw:12": "pw", "a:b": "a:b", "a:": "a:", "a:b:2": "a:b"} {
		if got := sqliteColumnBase(in); got != want {
			t.Errorf("sqliteColumnBase(%q) = %q, want %q", in, got, want)
		}
	}
}

// A view's text comes from the database file, not from us: whatever it
// holds, sqliteViewSelect returns or refuses without panicking, and what
// it returns is a suffix of the text's translation (never longer than
// twice the input: each quoted identifier at most doubles).
func FuzzSQLiteViewSelect(f *testing.F) {
	for _, q := range loadCorpus(f, "sqlite/views.sql") {
		f.Add(q)
	}
	f.Add("CREATE VIEW \"a\"\"b\" ([c]) AS SELECT `d` -- x\n/* y")
	f.Fuzz(func(t *testing.T, create string) {
		got, ok := sqliteViewSelect(create)
		if !ok && got != "" {
			t.Fatalf("refused with text %q", got)
		}
		if len(got) > 2*len(create)+2 {
			t.Fatalf("%d bytes from %d", len(got), len(create))
		}
	})
}
