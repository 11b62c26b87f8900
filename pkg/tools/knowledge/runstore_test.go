package knowledge_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// schema is the knowledge tables as the binary registers them.
func schema() runstore.Component {
	return runstore.Component{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()}
}

// openIndex opens the run store at path with the knowledge tables
// registered and binds an index of roots to them.
func openIndex(t *testing.T, path string, roots ...string) (*runstore.Store, *knowledge.Index) {
	t.Helper()
	st, err := runstore.Open(context.Background(), path, schema())
	if err != nil {
		t.Fatal(err)
	}
	tb, err := st.Tables(knowledge.SchemaName)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	return st, knowledge.NewIndex(tb, roots)
}

// TestWithRunStore indexes and searches through the real run store, which
// applies the knowledge migrations registered with it.
func TestWithRunStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "superbiz.db")
	st, ix := openIndex(t, path, filepath.Join("testdata", "runbooks"))
	stats, err := ix.Sync(ctx, nil)
	if err != nil || stats.Indexed != stats.Files || stats.Total == 0 {
		t.Fatalf("sync: %+v %v", stats, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened: the index persisted and is not rebuilt.
	st, ix = openIndex(t, path, filepath.Join("testdata", "runbooks"))
	defer st.Close()
	again, err := ix.Sync(ctx, nil)
	if err != nil || again.Indexed != 0 || again.Skipped != stats.Files || again.Total != stats.Total {
		t.Fatalf("resync after reopen: %+v %v", again, err)
	}
	docs, err := ix.Search(ctx, "redis 连接超时", 3)
	if err != nil || len(docs) == 0 || docs[0].Source != "runbooks/redis-timeout.zh.md" {
		t.Fatalf("search: %+v %v", docs, err)
	}
}

// TestLegacyStoreFile opens testdata/legacy/superbiz-v4.db, a store made by
// the release that kept the kb_* migrations in the run store (user_version
// 4: one finished run, testdata/runbooks indexed): it opens read-only as
// before, and opened for writing no migration runs again, its index and run
// are still there, and knowledge searches it.
func TestLegacyStoreFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "superbiz.db")
	copyFile(t, filepath.Join("testdata", "legacy", "superbiz-v4.db"), path)

	ro, err := runstore.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("read-only open of the legacy file: %v", err)
	}
	if _, err := ro.GetRun(ctx, "r_legacy"); err != nil {
		t.Errorf("read-only run: %v", err)
	}
	ro.Close()

	st, ix := openIndex(t, path, filepath.Join("testdata", "runbooks"))
	defer st.Close()
	tb, err := st.Tables(knowledge.SchemaName)
	if err != nil {
		t.Fatal(err)
	}
	var recorded string
	if err := tb.QueryRowContext(ctx, `SELECT group_concat(component || '/' || name, ' ') FROM
		(SELECT * FROM schema_migrations ORDER BY component, version)`).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	// The names of the earlier sequence: a re-applied step would add a row
	// named after today's file (or fail on its existing table); only the
	// store's migrations 3 (the runs rebuild for TOOL_CALL) and 4 (the audit
	// record's members) are new to it.
	if want := "knowledge/0002_knowledge.sql knowledge/0004_knowledge_vectors.sql runstore/0001_init.sql runstore/0003_knowledge_guard.sql runstore/0003_tool_call_intent.sql runstore/0004_invocation_detail.sql runstore/0005_timeline_intent.sql runstore/0006_run_number.sql"; recorded != want {
		t.Errorf("recorded migrations %q, want %q", recorded, want)
	}
	var sections int
	if err := tb.QueryRowContext(ctx, `SELECT count(*) FROM kb_sections`).Scan(&sections); err != nil || sections == 0 {
		t.Fatalf("the legacy index is gone: %d sections, %v", sections, err)
	}
	if _, err := st.GetRun(ctx, "r_legacy"); err != nil {
		t.Errorf("legacy run: %v", err)
	}
	stats, err := ix.Sync(ctx, nil)
	if err != nil || stats.Files == 0 || stats.Total == 0 {
		t.Fatalf("sync: %+v %v", stats, err)
	}
	docs, err := ix.Search(ctx, "redis 连接超时", 3)
	if err != nil || len(docs) == 0 || docs[0].Source != "runbooks/redis-timeout.zh.md" {
		t.Fatalf("search: %+v %v", docs, err)
	}
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
