package databases

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/superbiz/superbiz/internal/integration"
)

// PlantCanaries writes a SQLite database holding lines in every cell type a
// row may carry them in: a TEXT cell, a BLOB cell, a JSON document (TEXT)
// and the value of a key/value row whose key names a secret.
func (Source) PlantCanaries(dir string, lines []string) (p integration.Planted, err error) {
	path := filepath.Join(dir, "canary.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	if _, err := db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT, raw BLOB, doc TEXT);
		CREATE TABLE settings(name TEXT, value TEXT)`); err != nil {
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
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[databases]]\nname = \"canary\"\ndriver = \"sqlite\"\ndsn = %q\n", path),
		Calls: []json.RawMessage{
			json.RawMessage(`{"sql":"SELECT id, body, raw, doc FROM notes","max_rows":100}`),
			json.RawMessage(`{"sql":"SELECT name, value FROM settings","max_rows":100}`),
		},
	}, nil
}
