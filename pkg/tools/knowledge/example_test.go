package knowledge_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// The index lives in the run store's file, in the tables the store hands
// the knowledge component; Sync reads the runbooks and Search ranks their
// sections (BM25), as lookup_knowledge does.
func ExampleIndex_Search() {
	dir, err := os.MkdirTemp("", "knowledge-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	runbooks := filepath.Join(dir, "runbooks")
	if err := os.Mkdir(runbooks, 0o700); err != nil {
		panic(err)
	}
	doc := "# MySQL connection pool\n\n## Pool exhausted\n\nConnection is not available after 3000ms: look for slow queries holding connections.\n\n## Pool too small\n\nRaise the pool size only after the slow queries are fixed.\n"
	if err := os.WriteFile(filepath.Join(runbooks, "mysql-pool.md"), []byte(doc), 0o600); err != nil {
		panic(err)
	}
	ctx := context.Background()
	st, err := runstore.Open(ctx, filepath.Join(dir, "runs.db"), runstore.Component{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	tables, err := st.Tables(knowledge.SchemaName)
	if err != nil {
		panic(err)
	}
	ix := knowledge.NewIndex(tables, []string{runbooks})
	if _, err := ix.Sync(ctx, nil); err != nil {
		panic(err)
	}
	docs, err := ix.Search(ctx, "slow queries holding connections", 1)
	if err != nil {
		panic(err)
	}
	for _, d := range docs {
		fmt.Println(d.Title, "|", d.Snippet)
	}
	// Output:
	// MySQL connection pool › Pool exhausted | Connection is not available after 3000ms: look for slow queries holding connections.
}
