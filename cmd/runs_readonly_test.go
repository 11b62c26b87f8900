package cmd

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// `runs` and `runs show` open the store read-only: on a store in
// rollback-journal mode they list and show the run without a WAL switch,
// a recovery or any other write (the file's bytes stay the same, no -wal).
func TestRunsNeverWriteTheStore(t *testing.T) {
	env := diagnoseEnv(t)
	path := env["SUPERBIZ_DB"]
	ctx := context.Background()
	store, err := runstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateSession(ctx, "s_ro"); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateRun(ctx, runstore.NewRun{ID: "r_ro", SessionID: "s_ro", Query: "archived question", Intent: runrecord.IntentDiagnosis, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA journal_mode = DELETE"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	sum := func() [32]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	before := sum()
	for _, args := range [][]string{{"runs"}, {"runs", "-o", "json"}, {"runs", "show", "r_ro"}, {"runs", "--session", "s_ro"}} {
		code, out, errOut := cli(t, env, args...)
		if code != ExitOK || !strings.Contains(out, "r_ro") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if sum() != before {
		t.Error("runs wrote the store")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("runs switched the store to WAL")
	}
}
