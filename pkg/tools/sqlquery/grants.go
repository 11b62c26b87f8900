package sqlquery

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// readPrivileges are the privileges a diagnosis account may hold: everything
// else lets the account change data, schema, files, other sessions or grants.
var readPrivileges = map[string]bool{
	"SELECT": true, "USAGE": true, "SHOW VIEW": true, "SHOW DATABASES": true,
}

// riskyPrivileges get a specific explanation in doctor's warning.
var riskyPrivileges = map[string]string{
	"FILE":           "can read and write files on the server host",
	"PROCESS":        "can see every session's statements",
	"SUPER":          "can kill sessions and change global settings",
	"ALL PRIVILEGES": "can write and change schema",
	"ALL":            "can write and change schema",
}

// grantRE reads one SHOW GRANTS line; compiled on first use (doctor), not at start-up.
var grantRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s+(\S+)`)
})

// GrantWarnings reads SHOW GRANTS lines and says, one line per finding, what
// the account can do beyond reading. No warning means a SELECT-only account:
// the real read-only boundary the guard and transaction only back up.
func GrantWarnings(grants []string) []string {
	var warnings []string
	for _, g := range grants {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		if strings.Contains(strings.ToUpper(g), "WITH GRANT OPTION") {
			warnings = append(warnings, fmt.Sprintf("account can grant privileges to others (WITH GRANT OPTION): %s", g))
		}
		m := grantRE().FindStringSubmatch(g)
		if m == nil {
			if strings.HasPrefix(strings.ToUpper(g), "GRANT PROXY") || strings.HasPrefix(strings.ToUpper(g), "GRANT ") {
				warnings = append(warnings, fmt.Sprintf("account holds a role or proxy grant whose privileges are not checked here: %s", g))
			}
			continue
		}
		target := strings.TrimSpace(m[2])
		if grantee := strings.Trim(m[3], "`'\""); strings.EqualFold(grantee, "PUBLIC") {
			target += " (granted to PUBLIC, so to every account)"
		}
		var writes []string
		for _, p := range splitPrivileges(m[1]) {
			name := privilegeName(p)
			if readPrivileges[name] {
				continue
			}
			if why, ok := riskyPrivileges[name]; ok {
				warnings = append(warnings, fmt.Sprintf("account holds %s on %s: it %s; use a SELECT-only account", name, target, why))
				continue
			}
			writes = append(writes, name)
		}
		if len(writes) > 0 {
			warnings = append(warnings, fmt.Sprintf("account holds %s on %s: it is not read-only; use a SELECT-only account", strings.Join(writes, ", "), target))
		}
	}
	return warnings
}

// splitPrivileges splits "SELECT, INSERT (a, b), UPDATE" at top-level commas.
func splitPrivileges(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// privilegeName drops a column list: "UPDATE (a, b)" → "UPDATE".
func privilegeName(p string) string {
	if i := strings.IndexByte(p, '('); i >= 0 {
		p = p[:i]
	}
	return strings.ToUpper(strings.Join(strings.Fields(p), " "))
}

// CheckGrants runs SHOW GRANTS on db and returns doctor's warnings.
func CheckGrants(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return nil, fmt.Errorf("show grants: %w", err)
	}
	defer rows.Close()
	var grants []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("read grants: %w", err)
		}
		grants = append(grants, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	return GrantWarnings(grants), nil
}

// Ping connects to the named database, for doctor.
func (t *Tool) Ping(ctx context.Context, name string) error {
	h, err := t.resolve(name)
	if err != nil {
		return err
	}
	if h.db.Driver == DriverSQLite {
		pool, err := h.openSQLite()
		if err != nil {
			return err
		}
		var n int
		if err := pool.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
			return sqliteOpenError(h, err)
		}
		return nil
	}
	if h.db.Driver == DriverPostgres {
		return h.pingPostgres(ctx)
	}
	pool, _, err := h.openMySQL(ctx)
	if err != nil {
		return err
	}
	if err := pool.PingContext(ctx); err != nil {
		return &unavailableError{where: h.where(), err: err}
	}
	return nil
}

// Grants returns doctor's warnings for the named database: for MySQL and
// MariaDB what SHOW GRANTS allows beyond reading; for PostgreSQL what the
// role's attributes, predefined roles and table privileges allow (see
// PostgresRights); for SQLite whether the connection really refuses writes
// (query_only).
func (t *Tool) Grants(ctx context.Context, name string) ([]string, error) {
	h, err := t.resolve(name)
	if err != nil {
		return nil, err
	}
	if h.db.Driver == DriverSQLite {
		pool, err := h.openSQLite()
		if err != nil {
			return nil, err
		}
		var queryOnly int
		if err := pool.QueryRowContext(ctx, "PRAGMA query_only").Scan(&queryOnly); err != nil {
			return nil, sqliteOpenError(h, err)
		}
		if queryOnly != 1 {
			return []string{fmt.Sprintf("database %q: the SQLite connection is not query_only", name)}, nil
		}
		return nil, nil
	}
	if h.db.Driver == DriverPostgres {
		r, err := h.postgresRights(ctx)
		if err != nil {
			return nil, err
		}
		return r.Warnings(), nil
	}
	pool, _, err := h.openMySQL(ctx)
	if err != nil {
		return nil, err
	}
	w, err := CheckGrants(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.where(), err)
	}
	v, err := ViewWarnings(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.where(), err)
	}
	return append(w, v...), nil
}

// ViewWarnings says when the account cannot read the bodies of views in
// the connection's database (every database it sees when the DSN names
// none): it lacks SHOW VIEW, so query_mysql cannot tell which of their
// columns are computed from a secret and masks every column of them.
func ViewWarnings(ctx context.Context, db *sql.DB) ([]string, error) {
	var n int
	var names sql.NullString
	err := db.QueryRowContext(ctx, `SELECT COUNT(*), SUBSTRING_INDEX(GROUP_CONCAT(CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) ORDER BY TABLE_SCHEMA, TABLE_NAME SEPARATOR ', '), ', ', 3)
FROM information_schema.VIEWS
WHERE COALESCE(VIEW_DEFINITION, '') = ''
  AND (TABLE_SCHEMA = DATABASE() OR (DATABASE() IS NULL AND TABLE_SCHEMA NOT IN ('mysql', 'sys', 'information_schema', 'performance_schema')))`).Scan(&n, &names)
	if err != nil {
		return nil, fmt.Errorf("read which view bodies the account can read: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	return []string{fmt.Sprintf("account cannot read the bodies of %d views (%s%s): it lacks SHOW VIEW, so query_mysql masks every column of them; grant SHOW VIEW on the database so each view is judged by what it is built on",
		n, names.String, map[bool]string{true: ", …", false: ""}[n > 3])}, nil
}
