package sqlquery

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

func pgStmtOf(t *testing.T, sql string) *PostgresChecked {
	t.Helper()
	tree, err := safePGParse(sql)
	if err != nil {
		t.Fatal(err)
	}
	return &PostgresChecked{Kind: KindSelect, tree: tree}
}

// A view body is judged by what it reads of the listed catalogs.
func TestPGBodyTaint(t *testing.T) {
	for _, tt := range []struct {
		body   string
		system bool
		want   string // substring; "" for admitted
	}{
		{"SELECT s.oid, d.stxdmcv FROM pg_statistic_ext s JOIN pg_statistic_ext_data d ON d.stxoid = s.oid", true, "pg_statistic_ext_data, a catalog"},
		{"SELECT um.umuser FROM pg_user_mapping um", true, ""},
		{"SELECT um.umoptions FROM pg_user_mapping um", true, "pg_user_mapping.umoptions"},
		{"SELECT u.rolname, u.oid FROM pg_authid u", true, ""},
		{"SELECT u.rolpassword FROM pg_authid u", true, "pg_authid.rolpassword"},
		{"SELECT * FROM pg_authid", true, "a * over pg_authid"},
		{"SELECT u FROM pg_authid u", true, "whole rows of pg_authid"},
		{"SELECT pg_authid FROM pg_authid", true, "whole rows of pg_authid"},
		{"SELECT x.tgname, pg_get_triggerdef(x.oid) FROM pg_trigger x", true, "pg_get_triggerdef()"},
		{"SELECT s.pid FROM pg_stat_get_activity(NULL) s", true, ""},
		{"SELECT s.pid FROM pg_stat_get_activity(NULL) s", false, "pg_stat_get_activity()"},
		{"SELECT current_setting('archive_command')", false, "current_setting()"},
		{"SELECT current_setting('work_mem')", true, ""},
		{"SELECT name FROM pg_settings", true, ""},
		{"SELECT name, setting FROM pg_settings", true, "pg_settings.setting"},
		{"SELECT a.query FROM pg_stat_activity a", false, "pg_stat_activity.query"},
		{"SELECT a.pid FROM pg_stat_activity a", false, ""},
		{"SELECT id FROM orders", false, ""},
	} {
		got := pgBodyTaint(pgStmtOf(t, tt.body).tree.GetStmts()[0].GetStmt(), tt.system)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%q (system %t): %q, want %q", tt.body, tt.system, got, tt.want)
		}
	}
}

func TestPGSecretColumnsOf(t *testing.T) {
	for name, want := range map[string]string{
		"pg_authid": "rolpassword", "pg_statistic": "*", "pg_settings": "setting,reset_val,boot_val",
		"pg_stat_activity": "query", "pg_shadow": "passwd,useconfig", "orders": "",
	} {
		if got := strings.Join(pgSecretColumnsOf(name), ","); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]bool{"pg_roles": true, "PG_SETTINGS": true, "pg_file_settings": true, "pg_stats_ext": false, "orders": false} {
		if got := pgListedRelation(name); got != want {
			t.Errorf("listed %s: %t", name, got)
		}
	}
}

// Functions and operators are sent qualified with pg_catalog; names
// already qualified, BETWEEN and LIKE forms stay as they are.
func TestPGQualifyCalls(t *testing.T) {
	c := pgStmtOf(t, "SELECT length(1), pg_catalog.lower('A'), count(*) FROM orders WHERE id + 1 = ANY(ARRAY[2]) AND note LIKE 'x%' AND id BETWEEN 1 AND 3")
	pgQualifyCalls(c.tree.GetStmts()[0].GetStmt())
	out, err := safePGDeparse(c.tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pg_catalog.length(1)", "pg_catalog.lower('A')", "pg_catalog.count(*)", "OPERATOR(pg_catalog.+)", "OPERATOR(pg_catalog.=) ANY", "LIKE 'x%'", "BETWEEN 1 AND 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("%s: no %q", out, want)
		}
	}
	if strings.Contains(out, "pg_catalog.pg_catalog") {
		t.Errorf("qualified twice: %s", out)
	}
}

// Whole-row references are told from columns by the server's column lists.
func TestPGWholeRowAndOutputs(t *testing.T) {
	sql := "SELECT u, u::text, u.name, x, to_json(u), u.to_json, (u.*)::text, row(u.*), t, v, name FROM users u, orders o, (SELECT 1 AS x) t, vault v"
	c := pgStmtOf(t, sql)
	stmt := c.tree.GetStmts()[0].GetStmt()
	rels := pgRelations(stmt)
	if len(rels) != 3 {
		t.Fatalf("%d relations", len(rels))
	}
	rels[0].oid, rels[0].attrs = 1, []string{"id", "name", "password"}
	rels[1].oid, rels[1].attrs = 2, []string{"id", "status"}
	rels[2].oid, rels[2].attrs, rels[2].carriers = 3, []string{"id", "cred"}, []string{"cred"}
	r := pgResolutionOf(stmt, rels)
	if !r.rowSecret["u"] || r.rowSecret["o"] || !r.rowSecret["v"] || !r.anySecret || !r.carriers["cred"] {
		t.Fatalf("resolution %+v", r)
	}
	names := []string{"u", "u", "name", "x", "to_json", "to_json", "u", "row", "t", "v", "name"}
	got := pgSecretOutputs(c, names, r)
	want := []bool{true, true, false, false, true, true, true, true, true, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("output %d (%s): secret %t, want %t", i, names[i], got[i], want[i])
		}
	}
	clean := pgResolutionOf(stmt, rels[1:2])
	if got := pgSecretOutputs(pgStmtOf(t, "SELECT o, o::text FROM orders o"), []string{"o", "o"}, clean); got[0] || got[1] {
		t.Errorf("a row without secret-named columns masked: %v", got)
	}
	if pgWholeRow(nil, r) || pgWholeRow(stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetColumnRef().GetFields(), nil) {
		t.Error("whole row without fields or resolution")
	}
}

func TestPGQuote(t *testing.T) {
	if got := pgQuoteIdent(`a"b`); got != `"a""b"` {
		t.Error(got)
	}
	if got := pgQuoteLiteral(`it's`); got != `'it''s'` {
		t.Error(got)
	}
	for name, want := range map[string]bool{"archive_command": true, "PRIMARY_CONNINFO": true, "myapp.password": true, "work_mem": false} {
		if pgSecretSetting(name) != want {
			t.Errorf("%s: %t", name, !want)
		}
	}
}

// What a view is built on decides, through views of views: a chain of
// views built on a refused column is refused with every view of it named;
// views nested pgMaxViewDepth deep are judged, one deeper is refused; a
// view of pg_catalog may call the statement-text and settings readers, a
// user's view may not. The views are this test's own, under names no other
// run uses.
func TestPostgresViewsOfViews(t *testing.T) {
	admin := pgAdmin(t)
	exec := func(q string) {
		if _, err := admin.Exec(context.Background(), q).ReadAll(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p := "superbiz_v" + strconv.FormatInt(time.Now().UnixNano(), 36) + "_"
	create := func(name, body string) {
		exec("CREATE VIEW public." + p + name + " AS " + body)
		t.Cleanup(func() { exec("DROP VIEW public." + p + name) })
	}
	create("m1", "SELECT srvname FROM public.mapping_view")
	create("m2", "SELECT srvname FROM public."+p+"m1")
	create("d1", "SELECT id FROM public.orders")
	for i := 2; i <= pgMaxViewDepth+1; i++ {
		create("d"+strconv.Itoa(i), "SELECT id FROM public."+p+"d"+strconv.Itoa(i-1))
	}
	create("setting", "SELECT pg_catalog.current_setting('work_mem') AS v")
	tool := postgresTool(t, pgEnvAdmin, 10*time.Second)
	for _, tt := range []struct{ sql, refused string }{
		{"SELECT srvname FROM " + p + "m1", "view public." + p + "m1 is built on public.mapping_view, itself built on pg_user_mappings.umoptions"},
		{"SELECT srvname FROM " + p + "m2", "view public." + p + "m2 is built on public." + p + "m1, itself built on public.mapping_view, itself built on pg_user_mappings.umoptions"},
		{"SELECT count(*) FROM " + p + "d" + strconv.Itoa(pgMaxViewDepth), ""},
		{"SELECT count(*) FROM " + p + "d" + strconv.Itoa(pgMaxViewDepth+1), "views nested deeper than " + strconv.Itoa(pgMaxViewDepth)},
		{"SELECT count(*) FROM pg_stat_replication", ""},
		{"SELECT v FROM " + p + "setting", "current_setting(), which returns what a refused catalog holds"},
	} {
		out := execute(t, tool, tt.sql, 5)
		if tt.refused == "" && out.ErrorCode != "" {
			t.Errorf("%s: got %s/%s (%v), want an answer", tt.sql, out.Status, out.ErrorCode, out.Detail)
		}
		if tt.refused != "" && (out.ErrorCode != tools.CodeNotAllowed || !strings.Contains(out.Detail.Error(), tt.refused)) {
			t.Errorf("%s: got %s/%s (%v), want NOT_ALLOWED naming %q", tt.sql, out.Status, out.ErrorCode, out.Detail, tt.refused)
		}
	}
}

// Names mean what PostgreSQL resolves them to. A name the statement's CTE
// defines is that CTE only when unqualified: a schema-qualified table of
// the same name is the table, resolved by the server and masked by its
// columns, while the CTE's own rows are not the table's. A lone name that
// is an output column of a derived table is that column, not the whole row
// of the range of the same name; an unnamed cast's column is named after
// its type, an unnamed call's after its function, and masked under that
// name when it reads a secret. A star inside an expression reads every
// column its ranges have. A set operation's column is secret when any of
// its branches reads a secret there.
func TestPostgresNamesAsResolved(t *testing.T) {
	tool := postgresTool(t, pgEnvRO, 10*time.Second)
	for _, tt := range []struct{ sql, want string }{
		{"WITH users AS (SELECT 1 AS id) SELECT u::text AS r FROM public.users u", egress.Marker},
		{"WITH users AS (SELECT 7 AS id) SELECT u::text AS r FROM users u", "(7)"},
		{"SELECT u FROM (SELECT id AS u FROM users) u", "1"},
		{"SELECT text FROM (SELECT (password || '')::text FROM users) s", egress.Marker},
		{"SELECT lower FROM (SELECT lower(password) FROM users) s", egress.Marker},
		{"WITH p AS (SELECT password FROM users) SELECT ARRAY(SELECT * FROM p) AS a", egress.Marker},
		{"SELECT name FROM users WHERE false UNION ALL SELECT password FROM users", egress.Marker},
	} {
		out := execute(t, tool, tt.sql, 5)
		res, ok := out.Result.(Result)
		if !ok || len(res.Rows) != 1 || fmt.Sprint(res.Rows[0][0]) != tt.want {
			t.Errorf("%s: got %s/%s (%v) %+v, want one row %q", tt.sql, out.Status, out.ErrorCode, out.Detail, out.Result, tt.want)
		}
	}
}

// A column list longer than its query's columns is the server's error to
// report (INVALID_INPUT), not a failure of the masking that reads the list.
func TestPostgresMoreAliasesThanColumns(t *testing.T) {
	tool := postgresTool(t, pgEnvRO, 10*time.Second)
	for _, sql := range []string{
		"WITH c(a, b) AS (SELECT 1) SELECT a FROM c",
		"SELECT a FROM (SELECT 1) AS s(a, b)",
	} {
		if out := execute(t, tool, sql, 5); out.ErrorCode != tools.CodeInvalidInput {
			t.Errorf("%s: got %s/%s (%v), want INVALID_INPUT", sql, out.Status, out.ErrorCode, out.Detail)
		}
	}
}
