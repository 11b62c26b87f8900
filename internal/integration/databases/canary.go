package databases

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/superbiz/superbiz/internal/canary"
	"github.com/superbiz/superbiz/internal/integration"
)

// PlantCanaries plants lines in both kinds of database query_mysql reads:
// a SQLite file (plantSQLite) and a database of its own on the MariaDB
// server CI starts (.ci/mariadb.sh; TEXT, BLOB, JSON cells and a key/value
// row, and each text cell quoted by the server in an error), which Stop drops.
func (Source) PlantCanaries(dir string, lines []string) (integration.Planted, error) {
	sqlite, err := plantSQLite(dir, lines)
	if err != nil {
		return sqlite, err
	}
	toml, stop, err := plantMariaDB("canary_mariadb", lines)
	if err != nil {
		return sqlite, err
	}
	sqlite.Config += toml
	sqlite.Calls = append(sqlite.Calls, cellCalls("canary_mariadb", len(lines), mariadbQuoting)...)
	sqlite.Calls = append(sqlite.Calls, vaultCalls("canary_mariadb", len(lines))...)
	sqlite.Stop = stop
	return sqlite, nil
}

// plantSQLite writes a SQLite database holding lines in every place SQLite
// keeps text: a TEXT cell, a BLOB cell, a JSON document (TEXT), the value of
// a key/value row whose key names a secret, an FTS5 index, a column's
// DEFAULT literal, a trigger that copies a changed value to another table
// (which must not fire while a copy is masked), and the bare secrets of a
// password column read through a view that renames it (vault_view.pw).
func plantSQLite(dir string, lines []string) (p integration.Planted, err error) {
	path := filepath.Join(dir, "canary.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	if _, err := db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT, raw BLOB, doc TEXT);
		CREATE TABLE settings(name TEXT, value TEXT);
		CREATE VIRTUAL TABLE search USING fts5(body);
		CREATE TABLE audit(old TEXT);
		CREATE TABLE vault(id INTEGER PRIMARY KEY, password TEXT);
		CREATE VIEW vault_view AS SELECT id, password AS pw FROM vault;
		CREATE TRIGGER keep_old AFTER UPDATE ON settings BEGIN INSERT INTO audit VALUES (old.value); END`); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	for i, l := range lines {
		doc, err := json.Marshal(map[string]any{"note": l, "n": i})
		if err != nil {
			return p, fmt.Errorf("plant canaries: %w", err)
		}
		if _, err := db.Exec(`INSERT INTO notes(body, raw, doc) VALUES (?, ?, ?)`, l, []byte(l), string(doc)); err != nil {
			return p, fmt.Errorf("plant canaries: %w", err)
		}
		if _, err := db.Exec(`INSERT INTO settings VALUES (?, ?)`, fmt.Sprintf("smtp_password_%d", i), l); err != nil {
			return p, fmt.Errorf("plant canaries: %w", err)
		}
		if _, err := db.Exec(`INSERT INTO search VALUES (?)`, l); err != nil {
			return p, fmt.Errorf("plant canaries: %w", err)
		}
	}
	for i, secret := range canary.Secrets(lines) {
		if _, err := db.Exec(`INSERT INTO vault VALUES (?, ?)`, i, secret); err != nil {
			return p, fmt.Errorf("plant canaries: %w", err)
		}
	}
	defaults := make([]string, len(lines))
	for i, l := range lines {
		defaults[i] = fmt.Sprintf("c%d TEXT DEFAULT '%s'", i, strings.ReplaceAll(l, "'", "''"))
	}
	if _, err := db.Exec(`CREATE TABLE defaults(` + strings.Join(defaults, ", ") + `)`); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[databases]]\nname = \"canary\"\ndriver = \"sqlite\"\ndsn = %q\n", path),
		Calls: []json.RawMessage{
			sqlCall("canary", "SELECT id, body, raw, doc FROM notes"),
			sqlCall("canary", "SELECT name, value FROM settings"),
			sqlCall("canary", "SELECT id, password FROM vault ORDER BY id"),
			sqlCall("canary", "SELECT id, pw FROM vault_view ORDER BY id"),
		},
	}, nil
}
