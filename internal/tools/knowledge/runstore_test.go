package knowledge_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/runstore"
	"github.com/superbiz/superbiz/internal/tools/knowledge"
)

// TestWithRunStore indexes and searches through the real run store, whose
// loader applies 0002_knowledge.sql with the other migrations.
func TestWithRunStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "superbiz.db")
	st, err := runstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ix := knowledge.NewIndex(st.DB(), []string{filepath.Join("testdata", "runbooks")})
	stats, err := ix.Sync(ctx, nil)
	if err != nil || stats.Indexed != stats.Files || stats.Total == 0 {
		t.Fatalf("sync: %+v %v", stats, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened: the index persisted and is not rebuilt.
	st, err = runstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix = knowledge.NewIndex(st.DB(), []string{filepath.Join("testdata", "runbooks")})
	again, err := ix.Sync(ctx, nil)
	if err != nil || again.Indexed != 0 || again.Skipped != stats.Files || again.Total != stats.Total {
		t.Fatalf("resync after reopen: %+v %v", again, err)
	}
	docs, err := ix.Search(ctx, "redis 连接超时", 3)
	if err != nil || len(docs) == 0 || docs[0].Source != "runbooks/redis-timeout.zh.md" {
		t.Fatalf("search: %+v %v", docs, err)
	}
}
