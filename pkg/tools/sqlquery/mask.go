package sqlquery

import (
	"maps"
	"strings"

	"github.com/superbiz/superbiz/pkg/egress"
	"vitess.io/vitess/go/vt/sqlparser"
)

// keyColumns and valueColumns name the two columns of a key/value answer
// (SHOW VARIABLES, a settings table): a row whose key is a secret key has its
// value masked.
var (
	keyColumns   = setOf("variable_name", "name", "key", "setting", "setting_name", "option_name", "param", "parameter", "config_key")
	valueColumns = setOf("value", "variable_value", "setting_value", "option_value", "config_value", "val")
)

// columnMask says which cells of an answer to mask.
type columnMask struct {
	secret   []bool // the whole column holds secrets
	key, val int    // key/value columns, -1 when absent
}

// newColumnMask decides which columns hold secrets: a column whose name is a
// secret key (password, API_KEY, authentication_string, an alias such as
// `x AS token`), and, when the admitted statement is known, a column computed
// from a secret column under another name (`password AS p`, a derived table
// or CTE that renames it), and a column of a view computed from a secret
// or whose body cannot be judged (views, from myViewTaint; nil for none).
func newColumnMask(c *Checked, names []string, views *viewTaint) columnMask {
	m := columnMask{secret: make([]bool, len(names)), key: -1, val: -1}
	var tainted map[string]bool
	var exprs [][]sqlparser.SelectExpr
	var seed map[string]bool
	if views != nil {
		seed = views.tainted
	}
	if c != nil && c.Kind == KindSelect {
		tainted = taintedNames(c.stmt, seed)
		if ts, ok := c.stmt.(sqlparser.TableStatement); ok {
			exprs = branchExprs(ts)
		}
	}
	if tainted == nil {
		tainted = seed
	}
	m.key, m.val = KeyValueColumns(names)
	for i, n := range names {
		lower := strings.ToLower(n)
		switch {
		case egress.SecretName(n), tainted[lower]:
			m.secret[i] = true
		default:
			for _, list := range exprs {
				if e := outputExpr(list, i, len(names)); e != nil && exprTainted(e, tainted) {
					m.secret[i] = true
				}
			}
		}
	}
	return m
}

// KeyValueColumns finds the key and value columns of a key/value table or
// answer (SHOW VARIABLES, a settings table) among names, -1 when absent: a
// row whose key is a secret key (redact.IsSecretKey) has its value masked,
// by query_mysql and by the eval pack's SQLite copy alike.
func KeyValueColumns(names []string) (key, val int) {
	key, val = -1, -1
	for i, n := range names {
		lower := strings.ToLower(n)
		if key < 0 && keyColumns[lower] {
			key = i
		}
		if val < 0 && valueColumns[lower] {
			val = i
		}
	}
	return key, val
}

// apply masks one row of cells in place: a cell of a secret column, or the
// value of a row whose key is a secret key, is a secret cell for
// redact.Cell (its text went through redact.Cell already, in cleanText).
func (m columnMask) apply(row []any) {
	for i, v := range row {
		if m.secret[i] {
			row[i] = egress.Cell(v, true)
		}
	}
	if m.key >= 0 && m.val >= 0 {
		if k, ok := row[m.key].(string); ok && egress.SecretName(k) {
			row[m.val] = egress.Cell(row[m.val], true)
		}
	}
}

// taintedNames are the lower-cased names (aliases, CTE and derived-table
// column names) whose value is computed from a secret-named column or from
// one of seed's names (a view's tainted columns), found by following renames
// to a fixed point; seed's names are among them.
func taintedNames(stmt sqlparser.Statement, seed map[string]bool) map[string]bool {
	type alias struct {
		name string
		expr sqlparser.Expr
	}
	type rename struct {
		cols sqlparser.Columns
		body sqlparser.TableStatement
	}
	var aliases []alias
	var renames []rename
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch n := node.(type) {
		case *sqlparser.AliasedExpr:
			if !n.As.IsEmpty() {
				aliases = append(aliases, alias{n.As.Lowered(), n.Expr})
			}
		case *sqlparser.CommonTableExpr:
			if len(n.Columns) > 0 {
				renames = append(renames, rename{n.Columns, n.Subquery})
			}
		case *sqlparser.AliasedTableExpr:
			if dt, ok := n.Expr.(*sqlparser.DerivedTable); ok && len(n.Columns) > 0 {
				renames = append(renames, rename{n.Columns, dt.Select})
			}
		}
		return true, nil
	}, stmt)
	tainted := maps.Clone(seed)
	if tainted == nil {
		tainted = map[string]bool{}
	}
	for changed := true; changed; {
		changed = false
		for _, a := range aliases {
			if !tainted[a.name] && exprTainted(a.expr, tainted) {
				tainted[a.name], changed = true, true
			}
		}
		for _, r := range renames {
			lists := branchExprs(r.body)
			for i, col := range r.cols {
				name := col.Lowered()
				if tainted[name] {
					continue
				}
				for _, list := range lists {
					if e := outputExpr(list, i, len(r.cols)); e != nil && exprTainted(e, tainted) {
						tainted[name], changed = true, true
						break
					}
				}
			}
		}
	}
	return tainted
}

// exprTainted reports whether e reads a secret-named or tainted column; a
// count of it is not a secret.
func exprTainted(e sqlparser.SQLNode, tainted map[string]bool) bool {
	found := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch n := node.(type) {
		case *sqlparser.Count, *sqlparser.CountStar:
			return false, nil
		case *sqlparser.ColName:
			if egress.SecretName(n.Name.String()) || tainted[n.Name.Lowered()] {
				found = true
			}
		case *sqlparser.StarExpr:
			return false, nil
		}
		return !found, nil
	}, e)
	return found
}

// branchExprs lists the select list of every SELECT a union is made of.
func branchExprs(ts sqlparser.TableStatement) [][]sqlparser.SelectExpr {
	switch s := ts.(type) {
	case *sqlparser.Select:
		return [][]sqlparser.SelectExpr{s.GetColumns()}
	case *sqlparser.Union:
		return append(branchExprs(s.Left), branchExprs(s.Right)...)
	}
	return nil
}

// outputExpr is the expression that yields output column i of n, or nil when
// a star expansion makes the position unknown (the column name decides then).
func outputExpr(list []sqlparser.SelectExpr, i, n int) sqlparser.SQLNode {
	first, last := -1, -1
	for j, e := range list {
		if _, ok := e.(*sqlparser.StarExpr); ok {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	var e sqlparser.SelectExpr
	switch {
	case first < 0 && len(list) == n && i < n:
		e = list[i]
	case first >= 0 && i < first:
		e = list[i]
	case first >= 0 && n-i <= len(list)-1-last:
		e = list[len(list)-(n-i)]
	}
	if ae, ok := e.(*sqlparser.AliasedExpr); ok {
		return ae.Expr
	}
	return nil
}
