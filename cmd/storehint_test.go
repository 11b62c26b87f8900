package cmd

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runstore"
)

// pkg/runstore names no flag (issue 35): the CLI adds the hint to a store
// it refuses, so a person reads the same words as before. A file a newer
// superbiz migrated is refused by `runs` with the upgrade-or---db hint;
// the empty path's error gets its own.
func TestStoreHints(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "runs.db")
	st, err := runstore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := runstore.SchemaVersion()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO schema_migrations VALUES ('runstore', ?, 'future.sql', 0)", latest+1); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data")}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"runs", "--db", path}, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	want := fmt.Sprintf("database schema version %d of runstore is newer than this superbiz knows (%d): upgrade superbiz, or point --db at another file\n", latest+1, latest)
	if code == ExitOK || !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("runs on a newer store: exit %d, stderr %q, want it to end %q", code, errOut.String(), want)
	}
	if got, want := storeHint(fmt.Errorf("x: %w", runstore.ErrNoPath)).Error(), "x: open run store: empty database path: set --db or SUPERBIZ_DB to a file path"; got != want {
		t.Errorf("storeHint(ErrNoPath) = %q, want %q", got, want)
	}
}
