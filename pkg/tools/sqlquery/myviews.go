package sqlquery

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/superbiz/superbiz/pkg/egress"
)

// What the server says a view is built on decides, not the view's column
// names (issue 34): `CREATE VIEW v AS SELECT password AS pw FROM users`
// makes `SELECT pw FROM v` return the password under a harmless name. Before
// the statement runs, on its own connection inside the READ ONLY
// transaction, query_mysql asks information_schema which tables of the
// statement are views, reads each body (VIEW_DEFINITION, names qualified by
// the server), follows views of views, and taints every view column
// computed from a secret-named column. A body the account cannot read
// (MySQL and MariaDB show an empty VIEW_DEFINITION without the SHOW VIEW
// privilege), cannot parse or nests too deep is not guessed at: every
// column of that view is masked, and the answer's note says why.

// myMaxViewDepth bounds how deep views of views are followed; deeper is
// masked whole (fail closed).
const myMaxViewDepth = 8

// myMaxViewLookups bounds the views one statement's judgment reads.
const myMaxViewLookups = 64

// whyNoShowView is the note of a view whose body the account cannot read.
const whyNoShowView = "the account cannot read its body (grant SHOW VIEW)"

// myTableRef is one table name a statement reads; schema "" is the
// connection's default database.
type myTableRef struct{ schema, name string }

// myView is one view as information_schema shows it to the account.
type myView struct {
	schema, name string
	body         string   // VIEW_DEFINITION, "" when the account cannot read it
	columns      []string // its column names in order
}

// viewTaint is what the views a statement reads say about its columns.
type viewTaint struct {
	// tainted are the lower-cased names of view columns computed from a
	// secret (or of a view whose body could not be judged): masked like a
	// secret-named column wherever the statement reads them.
	tainted map[string]bool
	// notes say which views were masked whole, and why.
	notes []string
	// looked counts the views read, bounded by myMaxViewLookups.
	looked int
	// dialect says where views are kept and how their bodies are written:
	// information_schema and a server-qualified SELECT (MySQL, MariaDB), or
	// sqlite_master and the CREATE VIEW statement as its author typed it.
	dialect Dialect
}

// note is the answer's note: which views were masked whole and why.
func (vt *viewTaint) note() string {
	if vt == nil || len(vt.notes) == 0 {
		return ""
	}
	return "masked: " + strings.Join(vt.notes, "; ")
}

// tableRefs lists the table names stmt reads, in order, without repeats.
func tableRefs(stmt sqlparser.SQLNode) []myTableRef {
	var out []myTableRef
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if n, ok := node.(*sqlparser.AliasedTableExpr); ok {
			if t, ok := n.Expr.(sqlparser.TableName); ok && !t.Name.IsEmpty() {
				r := myTableRef{schema: t.Qualifier.String(), name: t.Name.String()}
				if !slices.Contains(out, r) {
					out = append(out, r)
				}
			}
		}
		return true, nil
	}, stmt)
	return out
}

// myViewTaint judges the views stmt reads, on conn (the statement's own
// connection, inside its READ ONLY transaction, or SQLite's rolled-back
// one). A view built on a table the guard refuses is refused like that
// table (MySQL and MariaDB: SQLite has no such tables).
func myViewTaint(ctx context.Context, conn *sql.Conn, stmt sqlparser.Statement, d Dialect) (*viewTaint, error) {
	vt := &viewTaint{tainted: map[string]bool{}, dialect: d}
	secret, err := vt.judge(ctx, conn, tableRefs(stmt), "", 0)
	if err != nil {
		return nil, err
	}
	for c := range secret {
		vt.tainted[c] = true
	}
	return vt, nil
}

// judge returns the lower-cased names of the columns of the views among
// refs that are computed from a secret; schema is what an unqualified name
// means ("" for the connection's default database).
func (vt *viewTaint) judge(ctx context.Context, conn *sql.Conn, refs []myTableRef, schema string, depth int) (map[string]bool, error) {
	out := map[string]bool{}
	if len(refs) == 0 {
		return out, nil
	}
	lookup := lookupViews
	if vt.dialect == SQLite {
		lookup = sqliteLookupViews
	}
	views, err := lookup(ctx, conn, refs, schema)
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		secret, why, err := vt.viewColumns(ctx, conn, v, depth)
		if err != nil {
			return nil, err
		}
		if why != "" {
			secret = v.columns
			note := fmt.Sprintf("every column of view %s.%s (%s): %s", v.schema, v.name, strings.Join(v.columns, ", "), why)
			if !slices.Contains(vt.notes, note) {
				vt.notes = append(vt.notes, note)
			}
		}
		for _, c := range secret {
			out[strings.ToLower(c)] = true
		}
	}
	return out, nil
}

// viewColumns returns the columns of v computed from a secret, or why the
// view cannot be judged (then every column is masked).
func (vt *viewTaint) viewColumns(ctx context.Context, conn *sql.Conn, v myView, depth int) ([]string, string, error) {
	if v.body == "" {
		return nil, whyNoShowView, nil
	}
	if depth >= myMaxViewDepth {
		return nil, "views nested deeper than " + strconv.Itoa(myMaxViewDepth), nil
	}
	vt.looked++
	if vt.looked > myMaxViewLookups {
		return nil, "the statement reads more than " + strconv.Itoa(myMaxViewLookups) + " views", nil
	}
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: parserVersion})
	if err != nil {
		return nil, "", fmt.Errorf("build SQL parser: %w", err)
	}
	body := v.body
	if vt.dialect == SQLite {
		var readable bool
		if body, readable = sqliteViewSelect(v.body); !readable {
			return nil, "the SQL parser cannot read its body", nil
		}
	}
	stmt, err := safeParse(parser, body)
	if err != nil {
		return nil, "the SQL parser cannot read its body", nil //nolint:nilerr // unreadable is masked, not an error
	}
	ts, ok := stmt.(sqlparser.TableStatement)
	if !ok {
		return nil, "its body is not a SELECT", nil
	}
	if vt.dialect != SQLite {
		if err := checkSensitive(stmt, v.schema); err != nil {
			var r *Refusal
			if errors.As(err, &r) {
				return nil, "", refuse(ReasonNotAllowed, egress.Sprintf("view %s.%s is built on what the guard refuses: %s", v.schema, v.name, r.text))
			}
			return nil, "", err
		}
	}
	seed, err := vt.judge(ctx, conn, tableRefs(stmt), v.schema, depth+1)
	if err != nil {
		return nil, "", err
	}
	tainted := taintedNames(stmt, seed)
	lists := branchExprs(ts)
	var secret []string
	for i, col := range v.columns {
		hit := egress.SecretName(col) || tainted[strings.ToLower(col)]
		for _, list := range lists {
			e := outputExpr(list, i, len(v.columns))
			switch {
			case e != nil:
				hit = hit || exprTainted(e, tainted)
			case vt.dialect == SQLite:
				// SQLite keeps a body's stars as written: a star column
				// keeps its source's name, which the names above judge
				// (a repeated name is kept as "name:N").
				base := sqliteColumnBase(col)
				hit = hit || egress.SecretName(base) || tainted[strings.ToLower(base)]
			default:
				// A position the body does not name (the server expands
				// stars in a stored body, so this is unexpected) is masked.
				hit = true
			}
		}
		if hit {
			secret = append(secret, col)
		}
	}
	return secret, "", nil
}

// lookupViews asks information_schema which of refs are views, with their
// bodies and columns; schema is what an unqualified name means ("" for the
// connection's default database).
func lookupViews(ctx context.Context, conn *sql.Conn, refs []myTableRef, schema string) ([]myView, error) {
	var where []string
	var args []any
	for _, r := range refs {
		s := r.schema
		if s == "" {
			s = schema
		}
		if s == "" {
			where = append(where, "(v.TABLE_SCHEMA = DATABASE() AND v.TABLE_NAME = ?)")
			args = append(args, r.name)
			continue
		}
		where = append(where, "(v.TABLE_SCHEMA = ? AND v.TABLE_NAME = ?)")
		args = append(args, s, r.name)
	}
	q := `SELECT v.TABLE_SCHEMA, v.TABLE_NAME, COALESCE(v.VIEW_DEFINITION, ''), c.COLUMN_NAME
FROM information_schema.VIEWS v
JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = v.TABLE_SCHEMA AND c.TABLE_NAME = v.TABLE_NAME
WHERE ` + strings.Join(where, " OR ") + `
ORDER BY v.TABLE_SCHEMA, v.TABLE_NAME, c.ORDINAL_POSITION`
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read the statement's views from information_schema: %w", err)
	}
	return collectViews(rows, func(v *myView, col *string) error {
		return rows.Scan(&v.schema, &v.name, &v.body, col)
	})
}

// collectViews reads rows of one view column each, ordered by view and
// column position, into views; scan fills one row's view and column name.
func collectViews(rows *sql.Rows, scan func(v *myView, col *string) error) ([]myView, error) {
	defer rows.Close()
	var out []myView
	for rows.Next() {
		var v myView
		var col string
		if err := scan(&v, &col); err != nil {
			return nil, fmt.Errorf("read the statement's views: %w", err)
		}
		if n := len(out); n > 0 && out[n-1].schema == v.schema && out[n-1].name == v.name {
			out[n-1].columns = append(out[n-1].columns, col)
			continue
		}
		v.columns = []string{col}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the statement's views: %w", err)
	}
	return out, nil
}
