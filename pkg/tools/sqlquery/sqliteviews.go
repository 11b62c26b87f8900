package sqlquery

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SQLite views are judged like MySQL's and MariaDB's (issue 34): sqlite_master
// keeps every view's CREATE VIEW statement as its author wrote it, so
// `CREATE VIEW v AS SELECT password AS p FROM vault` makes p a secret column
// wherever a statement reads it, through views of views, column lists,
// unions, sub-selects and stars alike. The body is SQLite's dialect: its
// quoted identifiers ("x", [x], `x`) are turned into the parser's before the
// same judgment reads it, and a body it still cannot read is masked whole.

// sqliteLookupViews asks sqlite_master and sqlite_temp_master which of
// refs are views (SQLite's names are case-insensitive, and an unqualified
// name finds a temp view before a main one, so both are judged), with
// their CREATE VIEW text and columns. An attached database cannot exist:
// SQLITE_LIMIT_ATTACHED is 0, so ATTACH fails on every connection.
func sqliteLookupViews(ctx context.Context, conn *sql.Conn, refs []myTableRef, _ string) ([]myView, error) {
	var where []string
	var args []any
	for _, r := range refs {
		where = append(where, "m.name = ? COLLATE NOCASE")
		args = append(args, r.name)
	}
	q := `SELECT m.db, m.name, COALESCE(m.sql, ''), p.name
FROM (SELECT 'temp' AS db, type, name, sql FROM sqlite_temp_master
      UNION ALL SELECT 'main', type, name, sql FROM sqlite_master) AS m,
     pragma_table_info(m.name, m.db) AS p
WHERE m.type = 'view' AND (` + strings.Join(where, " OR ") + `)
ORDER BY m.db, m.name, p.cid`
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read the statement's views from sqlite_master and sqlite_temp_master: %w", err)
	}
	return collectViews(rows, func(v *myView, col *string) error {
		return rows.Scan(&v.schema, &v.name, &v.body, col)
	})
}

// sqliteViewSelect returns the SELECT of a CREATE VIEW statement as
// sqlite_master keeps it (everything after the first AS outside
// parentheses: the optional column list is in them), written for the
// parser: SQLite's quoted identifiers ("x", [x], `x`) become `x`, comments
// become spaces, string literals stay. false when the text ends inside a
// literal or an identifier, or has no AS.
func sqliteViewSelect(create string) (string, bool) {
	var b strings.Builder
	depth, start := 0, -1
	for i := 0; i < len(create); {
		c := create[i]
		switch {
		case c == '\'':
			end, ok := sqliteQuoteEnd(create, i, '\'')
			if !ok {
				return "", false
			}
			b.WriteString(create[i:end])
			i = end
		case c == '"' || c == '`' || c == '[':
			closing := c
			if c == '[' {
				closing = ']'
			}
			end, ok := sqliteQuoteEnd(create, i, closing)
			if !ok {
				return "", false
			}
			name := create[i+1 : end-1]
			if closing != ']' {
				name = strings.ReplaceAll(name, string([]byte{closing, closing}), string(closing))
			}
			b.WriteString("`" + strings.ReplaceAll(name, "`", "``") + "`")
			i = end
		case strings.HasPrefix(create[i:], "--"):
			nl := strings.IndexByte(create[i:], '\n')
			if nl < 0 {
				nl = len(create) - i
			}
			b.WriteByte(' ')
			i += nl
		case strings.HasPrefix(create[i:], "/*"):
			end := strings.Index(create[i+2:], "*/")
			if end < 0 {
				end = len(create) - i - 4 // an unterminated comment runs to the end
			}
			b.WriteByte(' ')
			i += end + 4
		case sqliteWordByte(c):
			j := i
			for j < len(create) && sqliteWordByte(create[j]) {
				j++
			}
			b.WriteString(create[i:j])
			if start < 0 && depth == 0 && strings.EqualFold(create[i:j], "AS") {
				start = b.Len()
			}
			i = j
		default:
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			b.WriteByte(c)
			i++
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.TrimSpace(b.String()[start:]), true
}

// sqliteQuoteEnd is the index just past the quoted span that opens at
// s[open], closed by closing (doubled inside it, except for ']'), and
// false when s ends first.
func sqliteQuoteEnd(s string, open int, closing byte) (int, bool) {
	for j := open + 1; j < len(s); j++ {
		if s[j] != closing {
			continue
		}
		if closing != ']' && j+1 < len(s) && s[j+1] == closing {
			j++
			continue
		}
		return j + 1, true
	}
	return 0, false
}

// sqliteWordByte is a byte of a keyword or bare identifier.
func sqliteWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// sqliteColumnBase is a view column's name without the ":N" SQLite adds
// to a repeated name ("id:1" for a second id).
func sqliteColumnBase(col string) string {
	i := strings.LastIndexByte(col, ':')
	if i < 0 || i == len(col)-1 || strings.Trim(col[i+1:], "0123456789") != "" {
		return col
	}
	return col[:i]
}
