package databases

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// The copy of a SQLite database holds no secret cell, not even in the free
// pages a masked or deleted value leaves behind.
func TestMaskSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE accounts(name TEXT, password TEXT, note TEXT, n INTEGER);
		INSERT INTO accounts VALUES ('a', 'PlainPw1xyz' || hex(randomblob(300)), 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789', 1), ('b', '', 'nothing secret', 2);`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	n, err := maskSQLite(context.Background(), path)
	if err != nil || n != 2 {
		t.Fatalf("masked %d (%v), want 2", n, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"PlainPw1xyz", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("the file still holds %s", s)
		}
	}
	if !bytes.Contains(b, []byte("nothing secret")) {
		t.Error("an innocent cell was lost")
	}
}
