package sqlquery

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/redact"
)

// maxMaskBytes bounds the text of one cell that masking reads: only
// MaxCellBytes of it are ever shown, so a longer value is cut to this prefix
// before masking (a secret member cut open at the end is masked to the end).
const maxMaskBytes = 4 << 10

// maxMemberName bounds a JSON member name the masker considers.
const maxMemberName = 128

// maskText masks the secrets of one text cell: the values of JSON members
// named like a secret (at any depth, also inside escaped JSON held in a JSON
// string), then every secret shape redact recognises.
func maskText(s string) string {
	return redact.String(maskJSONMembers(textclip.BytePrefix(s, maxMaskBytes)))
}

// maskJSONMembers replaces the value of every member whose name is a secret
// key ({"password":"x"}, {"headers":{"Authorization":"…"}}, {"api_key":1},
// {"credentials":{…}}) by Marker. It reads JSON leniently, because cells hold
// JSON that is truncated, embedded in other text or escaped inside a string
// ({\"token\":\"x\"}): a member is any quoted name followed by a colon, its
// quote style (the backslashes before the quote) tells the nesting level, and
// a value that does not end is masked to the end of the text. Valid JSON stays
// valid: a masked value becomes a string in the member's quote style.
//
// A masked scalar gains quotes, and in text that is not JSON such a new quote
// can open a name the pass before could not see (`"pass":0 pass":0`), so the
// passes repeat until nothing changes: each pass that changes the text masks
// a member more, and there are at most as many members as quotes.
func maskJSONMembers(s string) string {
	if strings.IndexByte(s, '"') < 0 || strings.IndexByte(s, ':') < 0 {
		return s
	}
	for range strings.Count(s, `"`) + 1 {
		out := maskJSONPass(s)
		if out == s {
			break
		}
		s = out
	}
	return s
}

// maskJSONPass is one left-to-right pass of maskJSONMembers.
func maskJSONPass(s string) string {
	var b strings.Builder
	copied := 0
	i := 0
	for {
		p := indexByteFrom(s, '"', i)
		if p < 0 {
			break
		}
		e := indexByteFrom(s, '"', p+1)
		if e < 0 {
			break
		}
		// The closing quote may open the next candidate: names are found
		// wherever two quotes enclose one, so misreading where strings start
		// cannot hide a member.
		i = e
		level := backslashRun(s, p)
		if backslashRun(s, e) != level || e-p-1-level <= 0 || e-p-1-level > maxMemberName {
			continue
		}
		name := s[p+1 : e-level]
		k := skipSpace(s, e+1)
		if k >= len(s) || s[k] != ':' || !redact.IsSecretKey(name) {
			continue
		}
		k = skipSpace(s, k+1)
		start, end, quoted := memberValue(s, k, level)
		if start == end {
			continue
		}
		b.WriteString(s[copied:start])
		q := strings.Repeat(`\`, level) + `"`
		if quoted {
			b.WriteString(redact.Marker)
		} else {
			b.WriteString(q + redact.Marker + q)
		}
		copied = end
		i = max(end, e+1)
		if i >= len(s) {
			break
		}
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// memberValue finds the value starting at k at the given quote level: for a
// string, the span of its content (quoted true); for an object, an array or a
// scalar, the whole span. An unterminated value runs to the end of s.
func memberValue(s string, k, level int) (start, end int, quoted bool) {
	if k >= len(s) {
		return k, k, false
	}
	if r := runAt(s, k); k+r < len(s) && s[k+r] == '"' && r == level {
		start = k + r + 1
		for q := start; q < len(s); q++ {
			if s[q] == '"' && closesString(backslashRun(s, q), level) {
				return start, q - level, true
			}
		}
		return start, len(s), true
	}
	switch s[k] {
	case '{', '[':
		depth, inString := 0, false
		for q := k; q < len(s); q++ {
			switch s[q] {
			case '"':
				if closesString(backslashRun(s, q), level) {
					inString = !inString
				}
			case '{', '[':
				if !inString {
					depth++
				}
			case '}', ']':
				if !inString {
					depth--
					if depth == 0 {
						return k, q + 1, false
					}
				}
			}
		}
		return k, len(s), false
	}
	end = k
	for end < len(s) && !strings.ContainsRune(",}]\"\\ \t\r\n", rune(s[end])) {
		end++
	}
	if s[k:end] == "null" {
		return k, k, false
	}
	return k, end, false
}

// closesString: at level 0 a quote after an even run of backslashes ends a
// string; at level n (escaped JSON) only a quote after exactly n does.
func closesString(run, level int) bool {
	if level == 0 {
		return run%2 == 0
	}
	return run == level
}

func indexByteFrom(s string, c byte, from int) int {
	if from >= len(s) {
		return -1
	}
	if j := strings.IndexByte(s[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// backslashRun counts the backslashes right before s[i].
func backslashRun(s string, i int) int {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n
}

// runAt counts the backslashes starting at s[i].
func runAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '\\' {
		n++
	}
	return n
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

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
// or CTE that renames it).
func newColumnMask(c *Checked, names []string) columnMask {
	m := columnMask{secret: make([]bool, len(names)), key: -1, val: -1}
	var tainted map[string]bool
	var exprs [][]sqlparser.SelectExpr
	if c != nil && c.Kind == KindSelect {
		tainted = taintedNames(c.stmt)
		if ts, ok := c.stmt.(sqlparser.TableStatement); ok {
			exprs = branchExprs(ts)
		}
	}
	for i, n := range names {
		lower := strings.ToLower(n)
		switch {
		case redact.IsSecretKey(n), tainted[lower]:
			m.secret[i] = true
		default:
			for _, list := range exprs {
				if e := outputExpr(list, i, len(names)); e != nil && exprTainted(e, tainted) {
					m.secret[i] = true
				}
			}
		}
		if m.key < 0 && keyColumns[lower] {
			m.key = i
		}
		if m.val < 0 && valueColumns[lower] {
			m.val = i
		}
	}
	return m
}

// apply masks one row of cells in place.
func (m columnMask) apply(row []any) {
	for i, v := range row {
		if m.secret[i] && v != nil && v != "" {
			row[i] = redact.Marker
		}
	}
	if m.key >= 0 && m.val >= 0 {
		if k, ok := row[m.key].(string); ok && redact.IsSecretKey(k) && row[m.val] != nil && row[m.val] != "" {
			row[m.val] = redact.Marker
		}
	}
}

// taintedNames are the lower-cased names (aliases, CTE and derived-table
// column names) whose value is computed from a secret-named column, found by
// following renames to a fixed point.
func taintedNames(stmt sqlparser.Statement) map[string]bool {
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
	tainted := map[string]bool{}
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
			if redact.IsSecretKey(n.Name.String()) || tainted[n.Name.Lowered()] {
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
