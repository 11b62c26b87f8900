package databases

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// sqliteMasked is what maskSQLite did to a copy.
type sqliteMasked struct {
	cells int      // distinct values masked
	notes []string // full-text indexes rebuilt or emptied, schema texts masked
}

// maskSQLite masks the SQLite database file path in place, as the egress
// policy masks what leaves the process, and rewrites the file so no masked
// value survives in a free page:
//
//   - every cell of every type: a secret-named column's non-empty value
//     whole, the value of a key/value row whose key names a secret whole
//     (sqlquery.KeyValueColumns), every TEXT and BLOB cell's secret shapes;
//   - the database's triggers are dropped while masking (one firing on the
//     masking UPDATE could copy the clear value elsewhere) and re-created
//     after, their literals masked;
//   - FTS5 tables are masked through their content and their index rebuilt
//     from it (a contentless index, which cannot be, is emptied), since the
//     index holds every token of the clear text;
//   - the string and blob literals of the schema (DEFAULT values, CHECK,
//     views, partial indexes), and a secret-named column's DEFAULT whole;
//   - sqlite_stat4's sampled index keys are deleted.
func maskSQLite(ctx context.Context, path string) (sqliteMasked, error) {
	var out sqliteMasked
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return out, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, p := range []string{"PRAGMA secure_delete = ON", "PRAGMA foreign_keys = OFF", "PRAGMA ignore_check_constraints = ON"} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return out, fmt.Errorf("%s: %w", p, err)
		}
	}
	triggers, err := dropTriggers(ctx, db)
	if err != nil {
		return out, err
	}
	type entry struct{ name, typ string }
	var list []entry
	rows, err := db.QueryContext(ctx, `SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return out, fmt.Errorf("list the tables: %w", err)
	}
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.name, &e.typ); err != nil {
			rows.Close()
			return out, fmt.Errorf("list the tables: %w", err)
		}
		list = append(list, e)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return out, fmt.Errorf("list the tables: %w", err)
	}
	for _, e := range list {
		switch e.typ {
		case "table":
			cols, err := tableColumns(ctx, db, e.name)
			if err != nil {
				return out, err
			}
			n, err := maskTable(ctx, db, e.name, cols, cols)
			if err != nil {
				return out, err
			}
			out.cells += n
		case "virtual":
			n, note, err := maskVirtual(ctx, db, e.name)
			if err != nil {
				return out, err
			}
			out.cells += n
			if note != "" {
				out.notes = append(out.notes, note)
			}
		}
		// A view holds no cells; a shadow table is masked with its
		// virtual table.
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM sqlite_stat4`); err != nil && !strings.Contains(err.Error(), "no such table") {
		return out, fmt.Errorf("delete the sampled index keys: %w", err)
	}
	n, err := maskSchema(ctx, db)
	if err != nil {
		return out, err
	}
	if n > 0 {
		out.notes = append(out.notes, fmt.Sprintf("%d schema text(s) masked", n))
	}
	for _, t := range triggers {
		if _, err := db.ExecContext(ctx, maskSQLLiterals(t, nil)); err != nil {
			return out, fmt.Errorf("re-create a trigger: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		return out, err
	}
	if bad, err := column[string](ctx, db, "PRAGMA integrity_check"); err != nil || len(bad) != 1 || bad[0] != "ok" {
		return out, fmt.Errorf("the masked copy fails its integrity check: %v %w", bad, err)
	}
	return out, nil
}

// dropTriggers drops every trigger of db and returns their definitions.
func dropTriggers(ctx context.Context, db *sql.DB) ([]string, error) {
	names, err := column[string](ctx, db, `SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list the triggers: %w", err)
	}
	defs, err := column[string](ctx, db, `SELECT sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list the triggers: %w", err)
	}
	for _, n := range names {
		if _, err := db.ExecContext(ctx, "DROP TRIGGER "+ident(n)); err != nil {
			return nil, fmt.Errorf("drop the trigger %s while masking: %w", n, err)
		}
	}
	return defs, nil
}

// tableColumns are the names of table's stored, writable columns (generated
// columns are computed from them).
func tableColumns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	cols, err := column[string](ctx, db, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0", table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	return cols, nil
}

// maskTable masks every cell of table, whose stored columns cols are named
// names for the masking rules (an FTS5 content table's c0, c1… are its
// virtual table's columns); it returns how many distinct values it masked.
// It updates by value, not by row, so it needs no row id.
func maskTable(ctx context.Context, db *sql.DB, table string, cols, names []string) (int, error) {
	masked := 0
	pk, err := column[string](ctx, db, "SELECT name FROM pragma_table_info(?) WHERE pk > 0", table)
	if err != nil {
		return 0, fmt.Errorf("columns of %s: %w", table, err)
	}
	for i, c := range cols {
		secret := egress.SecretName(names[i])
		vals, err := column[any](ctx, db, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %[1]s IS NOT NULL", ident(c), ident(table)))
		if err != nil {
			return 0, fmt.Errorf("read %s.%s: %w", table, c, err)
		}
		for _, v := range vals {
			r, ok := maskCell(v, secret)
			if !ok {
				continue
			}
			if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s = ? WHERE %[2]s = ?", ident(table), ident(c)), r, v); err != nil {
				return 0, fmt.Errorf("mask %s.%s: %w", table, c, err)
			}
			masked++
		}
	}
	// A key/value row whose key names a secret: its value whole (or, with
	// no value-named column, every column but the key and the primary key).
	key, val := sqlquery.KeyValueColumns(names)
	if key < 0 {
		return masked, nil
	}
	var vals []int
	for i, c := range cols {
		if i == val || val < 0 && i != key && !slices.Contains(pk, c) {
			vals = append(vals, i)
		}
	}
	keys, err := column[string](ctx, db, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE typeof(%[1]s) = 'text'", ident(cols[key]), ident(table)))
	if err != nil {
		return 0, fmt.Errorf("read %s.%s: %w", table, cols[key], err)
	}
	for _, k := range keys {
		if !egress.SecretName(k) {
			continue
		}
		for _, i := range vals {
			res, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ? AND %[2]s IS NOT NULL AND %[2]s NOT IN ('', ?)", ident(table), ident(cols[i]), ident(cols[key])), egress.Marker, k, egress.Marker)
			if err != nil {
				return 0, fmt.Errorf("mask %s.%s of %s: %w", table, cols[i], k, err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				masked++
			}
		}
	}
	return masked, nil
}

// maskCell is the masked value of one cell, and whether it differs: a
// secret column's non-empty value is Marker whatever its type, a TEXT or
// BLOB cell passes the egress policy (a BLOB stays a BLOB), a number holds
// no secret shape.
func maskCell(v any, secret bool) (any, bool) {
	switch x := v.(type) {
	case string:
		if secret {
			return egress.Marker, x != "" && x != egress.Marker
		}
		m := egress.Mask(x).String()
		return m, m != x
	case []byte:
		if secret {
			return egress.Marker, len(x) > 0
		}
		m := egress.Mask(string(x)).String()
		return []byte(m), m != string(x)
	case nil:
		return nil, false
	}
	return egress.Marker, secret
}

// usingModule finds the module of a CREATE VIRTUAL TABLE statement.
var usingModule = regexp.MustCompile(`(?i)\bUSING\s+([A-Za-z0-9_]+)`)

// maskVirtual masks the virtual table vt. An FTS5 table is masked through
// its content table (its own, or the ordinary table it indexes, masked as
// any table) and its index rebuilt from it; a contentless one, whose index
// alone holds the text, is emptied. Another module's shadow tables are
// masked as tables.
func maskVirtual(ctx context.Context, db *sql.DB, vt string) (int, string, error) {
	defs, err := column[string](ctx, db, `SELECT sql FROM sqlite_schema WHERE name = ?`, vt)
	if err != nil || len(defs) != 1 {
		return 0, "", fmt.Errorf("the definition of %s: %v %w", vt, defs, err)
	}
	shadows, err := column[string](ctx, db, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow' AND substr(name, 1, ?) = ?`, len(vt)+1, vt+"_")
	if err != nil {
		return 0, "", fmt.Errorf("the tables of %s: %w", vt, err)
	}
	m := usingModule.FindStringSubmatch(defs[0])
	if m == nil || !strings.EqualFold(m[1], "fts5") {
		masked := 0
		for _, s := range shadows {
			cols, err := tableColumns(ctx, db, s)
			if err != nil {
				return 0, "", err
			}
			n, err := maskTable(ctx, db, s, cols, cols)
			if err != nil {
				return 0, "", err
			}
			masked += n
		}
		return masked, "", nil
	}
	masked := 0
	if slices.Contains(shadows, vt+"_content") {
		names, err := tableColumns(ctx, db, vt)
		if err != nil {
			return 0, "", err
		}
		cols, err := tableColumns(ctx, db, vt+"_content")
		if err != nil {
			return 0, "", err
		}
		// The content table is id, c0, c1…: cN is the virtual table's Nth column.
		as := slices.Clone(cols)
		for i, c := range cols {
			if n, err := strconv.Atoi(strings.TrimPrefix(c, "c")); err == nil && strings.HasPrefix(c, "c") && n < len(names) {
				as[i] = names[n]
			}
		}
		if masked, err = maskTable(ctx, db, vt+"_content", cols, as); err != nil {
			return 0, "", err
		}
	}
	cmd := fmt.Sprintf("INSERT INTO %s(%[1]s) VALUES ", ident(vt))
	if _, err := db.ExecContext(ctx, cmd+"('rebuild')"); err == nil {
		return masked, fmt.Sprintf("the full-text index %s rebuilt from its masked content", vt), nil
	}
	if _, err := db.ExecContext(ctx, cmd+"('delete-all')"); err != nil {
		return 0, "", fmt.Errorf("empty the full-text index %s: %w", vt, err)
	}
	return masked, fmt.Sprintf("the full-text index %s emptied (it holds the only copy of its text, which cannot be masked)", vt), nil
}

// maskSchema masks the literals of the schema's definitions (tables,
// indexes, views, virtual tables) in place; it returns how many changed.
// Only the text inside literals changes, so each definition still parses,
// and the indexes are rebuilt after (a partial index's WHERE may have
// changed).
func maskSchema(ctx context.Context, db *sql.DB) (int, error) {
	type def struct {
		name string
		sql  string
	}
	var defs []def
	rows, err := db.QueryContext(ctx, `SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND type != 'trigger'`)
	if err != nil {
		return 0, fmt.Errorf("read the schema: %w", err)
	}
	for rows.Next() {
		var d def
		if err := rows.Scan(&d.name, &d.sql); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read the schema: %w", err)
		}
		defs = append(defs, d)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, fmt.Errorf("read the schema: %w", err)
	}
	secretDefaults, err := secretDefaults(ctx, db)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, d := range defs {
		m := maskSQLLiterals(d.sql, secretDefaults)
		if m == d.sql {
			continue
		}
		if changed == 0 {
			if _, err := db.ExecContext(ctx, "PRAGMA writable_schema = ON"); err != nil {
				return 0, fmt.Errorf("mask the schema: %w", err)
			}
		}
		if _, err := db.ExecContext(ctx, `UPDATE sqlite_schema SET sql = ? WHERE name = ?`, m, d.name); err != nil {
			return 0, fmt.Errorf("mask the definition of %s: %w", d.name, err)
		}
		changed++
	}
	if changed == 0 {
		return 0, nil
	}
	var version int64
	if err := db.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&version); err != nil {
		return 0, fmt.Errorf("mask the schema: %w", err)
	}
	for _, p := range []string{"PRAGMA writable_schema = OFF", fmt.Sprintf("PRAGMA schema_version = %d", version+1), "REINDEX"} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return 0, fmt.Errorf("mask the schema: %s: %w", p, err)
		}
	}
	return changed, nil
}

// secretDefaults are the DEFAULT literals of the secret-named columns, as
// their text: masked whole wherever the schema spells them.
func secretDefaults(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	out := map[string]bool{}
	tables, err := column[string](ctx, db, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table'`)
	if err != nil {
		return nil, fmt.Errorf("read the defaults: %w", err)
	}
	for _, t := range tables {
		rows, err := db.QueryContext(ctx, "SELECT name, dflt_value FROM pragma_table_xinfo(?) WHERE dflt_value IS NOT NULL", t)
		if err != nil {
			return nil, fmt.Errorf("read the defaults of %s: %w", t, err)
		}
		for rows.Next() {
			var name, dflt string
			if err := rows.Scan(&name, &dflt); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read the defaults of %s: %w", t, err)
			}
			if !egress.SecretName(name) {
				continue
			}
			for _, l := range sqlLiterals(dflt) {
				out[l.text] = true
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, fmt.Errorf("read the defaults of %s: %w", t, err)
		}
	}
	return out, nil
}

// sqlLiteral is one string or blob literal of a SQL text: its bytes
// [start, end) in the text, the value it spells, and whether it is a blob
// (X'…').
type sqlLiteral struct {
	start, end int
	text       string
	blob       bool
}

// sqlLiterals finds the string and blob literals of a SQLite statement,
// skipping quoted identifiers and comments.
func sqlLiterals(s string) []sqlLiteral {
	var out []sqlLiteral
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\'':
			start, blob := i, i > 0 && (s[i-1] == 'x' || s[i-1] == 'X') && (i < 2 || !isIdentByte(s[i-2]))
			var b strings.Builder
			i++
			for i < len(s) {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					break
				}
				b.WriteByte(s[i])
				i++
			}
			i++ // the closing quote
			l := sqlLiteral{start: start, end: min(i, len(s)), text: b.String(), blob: blob}
			if blob {
				l.start--
				raw, err := hex.DecodeString(l.text)
				if err != nil {
					continue
				}
				l.text = string(raw)
			}
			out = append(out, l)
		case c == '"' || c == '`' || c == '[':
			end := map[byte]byte{'"': '"', '`': '`', '[': ']'}[c]
			i++
			for i < len(s) && s[i] != end {
				i++
			}
			i++
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(s)
			}
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		default:
			i++
		}
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// maskSQLLiterals masks the literals of a SQL text: one of whole (a secret
// column's DEFAULT) becomes Marker, any other passes the egress policy. A
// blob literal stays a blob literal (the hex of its masked bytes).
func maskSQLLiterals(s string, whole map[string]bool) string {
	lits := sqlLiterals(s)
	var b strings.Builder
	last, changed := 0, false
	for _, l := range lits {
		m := egress.Mask(l.text).String()
		if whole[l.text] && l.text != "" {
			m = egress.Marker
		}
		if m == l.text {
			continue
		}
		b.WriteString(s[last:l.start])
		if l.blob {
			b.WriteString("X'" + hex.EncodeToString([]byte(m)) + "'")
		} else {
			b.WriteString("'" + strings.ReplaceAll(m, "'", "''") + "'")
		}
		last, changed = l.end, true
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
