package databases

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/superbiz/superbiz/internal/integration"
)

// PlantCanaries writes a SQLite database holding lines in every place SQLite
// keeps text: a TEXT cell, a BLOB cell, a JSON document (TEXT), the value of
// a key/value row whose key names a secret, an FTS5 index, a column's
// DEFAULT literal, and a trigger that copies a changed value to another
// table (which must not fire while a copy is masked).
func (Source) PlantCanaries(dir string, lines []string) (p integration.Planted, err error) {
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
			json.RawMessage(`{"sql":"SELECT id, body, raw, doc FROM notes","max_rows":100}`),
			json.RawMessage(`{"sql":"SELECT name, value FROM settings","max_rows":100}`),
		},
	}, nil
}
