package knowledge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// docIDs lists the doc_ids of the index in order.
func docIDs(t *testing.T, ix *Index) []string {
	t.Helper()
	rows, err := ix.db.QueryContext(context.Background(), `SELECT doc_id FROM kb_sections ORDER BY doc_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func mustSync(t *testing.T, ix *Index) Stats {
	t.Helper()
	st, err := ix.Sync(context.Background(), nil)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return st
}

func search(t *testing.T, ix *Index, q string, k int) []Document {
	t.Helper()
	docs, err := ix.Search(context.Background(), q, k)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return docs
}

func TestSyncIncremental(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	redis := writeFile(t, dir, "redis.md", "# Redis\n## Symptoms\nRedisCommandTimeoutException\n## Fix\nuse SCAN\n")
	writeFile(t, dir, "sub/mysql.md", "# MySQL\n## Pool\nHikariPool Connection is not available\n")
	writeFile(t, dir, "notes.yaml", "# not markdown\nHikariPool\n")
	writeFile(t, dir, ".git/x.md", "# hidden\nHikariPool\n")
	ix := NewIndex(openDB(t), []string{dir})

	var progress []Progress
	st, err := ix.Sync(context.Background(), func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if want := (Stats{Files: 2, Indexed: 2, Sections: 3, Total: 3}); !reflect.DeepEqual(st, want) {
		t.Fatalf("first sync %+v, want %+v", st, want)
	}
	if len(progress) != 2 || progress[1] != (Progress{Done: 2, Total: 2, Path: "runbooks/sub/mysql.md"}) {
		t.Fatalf("progress %+v", progress)
	}
	first := docIDs(t, ix)
	want := []string{"runbooks/redis.md#fix", "runbooks/redis.md#symptoms", "runbooks/sub/mysql.md#pool"}
	if !slices.Equal(first, want) {
		t.Fatalf("doc_ids %v, want %v", first, want)
	}

	// Nothing changed: everything skipped.
	if st := mustSync(t, ix); !reflect.DeepEqual(st, Stats{Files: 2, Skipped: 2, Total: 3}) {
		t.Fatalf("second sync %+v", st)
	}

	// Touched without change: hashed, mtime updated, not re-split.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(redis, later, later); err != nil {
		t.Fatal(err)
	}
	if st := mustSync(t, ix); !reflect.DeepEqual(st, Stats{Files: 2, Skipped: 2, Total: 3}) {
		t.Fatalf("touch sync %+v", st)
	}
	var mtime int64
	if err := ix.db.QueryRowContext(context.Background(), `SELECT mtime_ns FROM kb_files WHERE path = 'runbooks/redis.md'`).Scan(&mtime); err != nil || mtime != later.UnixNano() {
		t.Fatalf("mtime %d (%v), want %d", mtime, err, later.UnixNano())
	}
	if st := mustSync(t, ix); st.Skipped != 2 {
		t.Fatalf("after touch, sync %+v", st)
	}

	// Edited: sections replaced, old text gone, new text found.
	writeFile(t, dir, "redis.md", "# Redis\n## Symptoms\nbig keys block the server\n## Fix\nuse SCAN\n## Fix\nsplit big keys\n")
	if st := mustSync(t, ix); !reflect.DeepEqual(st, Stats{Files: 2, Indexed: 1, Skipped: 1, Sections: 3, Total: 4}) {
		t.Fatalf("edit sync %+v", st)
	}
	var stale int
	if err := ix.db.QueryRowContext(context.Background(), `SELECT count(*) FROM kb_fts WHERE kb_fts MATCH '"rediscommandtimeoutexception"'`).Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("stale text still indexed: %d rows (%v)", stale, err)
	}
	for _, d := range search(t, ix, "RedisCommandTimeoutException", 3) {
		if strings.Contains(d.Snippet, "RedisCommandTimeoutException") {
			t.Fatalf("stale text still found: %+v", d)
		}
	}
	if docs := search(t, ix, "split big keys", 1); len(docs) != 1 || docs[0].DocID != "runbooks/redis.md#fix-1" {
		t.Fatalf("edited text: %+v", docs)
	}

	// New file added, one deleted.
	writeFile(t, dir, "jvm.md", "# JVM\n## OOM\nOutOfMemoryError\n")
	if err := os.Remove(filepath.Join(dir, "sub", "mysql.md")); err != nil {
		t.Fatal(err)
	}
	if st := mustSync(t, ix); !reflect.DeepEqual(st, Stats{Files: 2, Indexed: 1, Skipped: 1, Removed: 1, Sections: 1, Total: 4}) {
		t.Fatalf("add/delete sync %+v", st)
	}
	if docs := search(t, ix, "HikariPool", 3); len(docs) != 0 {
		t.Fatalf("deleted file still found: %+v", docs)
	}
	var files, fts int
	if err := ix.db.QueryRowContext(context.Background(), `SELECT (SELECT count(*) FROM kb_files), (SELECT count(*) FROM kb_fts WHERE kb_fts MATCH '"hikaripool"')`).Scan(&files, &fts); err != nil {
		t.Fatal(err)
	}
	if files != 2 || fts != 0 {
		t.Fatalf("kb_files %d rows, %d orphan fts rows", files, fts)
	}
}

func TestDocIDStableAcrossReindex(t *testing.T) {
	src := filepath.Join("testdata", "runbooks")
	ix1 := NewIndex(openDB(t), []string{copyDir(t, src)})
	mustSync(t, ix1)
	// Another copy of the same runbooks (another temp dir, other mtimes),
	// indexed into the same database and into a fresh one.
	other := copyDir(t, src)
	ix2 := NewIndex(ix1.db, []string{other})
	st := mustSync(t, ix2)
	if st.Indexed != 0 || st.Skipped != st.Files {
		t.Fatalf("same content in a moved root was re-split: %+v", st)
	}
	ix3 := NewIndex(openDB(t), []string{other})
	mustSync(t, ix3)
	a, b := docIDs(t, ix1), docIDs(t, ix3)
	if len(a) < 40 || !slices.Equal(a, b) {
		t.Fatalf("doc_ids differ across reindexing:\n%v\n%v", a, b)
	}
}

func TestSyncRoots(t *testing.T) {
	ctx := context.Background()
	if _, err := NewIndex(openDB(t), nil).Sync(ctx, nil); !errors.Is(err, ErrNoRoots) {
		t.Fatalf("no roots: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := NewIndex(openDB(t), []string{missing}).Sync(ctx, nil)
	if !errors.Is(err, ErrRootMissing) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing root: %v", err)
	}
	// Two roots with the same base name and a single-file root.
	a := filepath.Join(t.TempDir(), "runbooks")
	b := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, a, "x.md", "# X\nalpha\n")
	writeFile(t, b, "x.md", "# X\nbeta\n")
	single := writeFile(t, t.TempDir(), "docs/one.md", "# One\ngamma\n")
	ix := NewIndex(openDB(t), []string{a, b, single})
	mustSync(t, ix)
	want := []string{"docs/one.md#one", "runbooks-2/x.md#x", "runbooks/x.md#x"}
	if got := docIDs(t, ix); !slices.Equal(got, want) {
		t.Fatalf("doc_ids %v, want %v", got, want)
	}
	// Dropping a root drops its files: the index mirrors the roots.
	ix = NewIndex(ix.db, []string{a})
	if st := mustSync(t, ix); st.Removed != 2 || st.Total != 1 {
		t.Fatalf("after dropping roots: %+v", st)
	}
}

func TestSyncCancelled(t *testing.T) {
	ix := NewIndex(openDB(t), []string{copyDir(t, filepath.Join("testdata", "runbooks"))})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Sync(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sync: %v", err)
	}
}

func TestSearchLanguages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "zh.md", "# 支付超时\n## 现象\n下单时连接超时，接口返回 504。\n## 处理\n打开熔断，避免重复扣款。\n")
	writeFile(t, dir, "en.md", "# Payment timeout\n## Symptoms\nThe payment gateway timed out with many 504s.\n")
	writeFile(t, dir, "gc.md", "# JVM\n## 老年代\n老年代 Full GC 频繁，停顿变长。\n")
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	tests := []struct {
		query, want string
	}{
		{"超时", "runbooks/zh.md#现象"},                             // 2-character word
		{"连接", "runbooks/zh.md#现象"},                             // 2-character word inside a longer run
		{"重复扣款", "runbooks/zh.md#处理"},                           // 4 characters
		{"扣", "runbooks/zh.md#处理"},                              // lone character: prefix
		{"支付超时", "runbooks/zh.md#"},                             // title and body: any section
		{"order-service 支付超时 504", "runbooks/zh.md#现象"},         // mixed
		{"老年代Full GC", "runbooks/gc.md#老年代"},                    // CJK glued to Latin
		{"payment gateway timeouts", "runbooks/en.md#symptoms"}, // stemming
		{"PAYMENT", "runbooks/en.md#symptoms"},                  // case
	}
	for _, tt := range tests {
		docs := search(t, ix, tt.query, 3)
		if len(docs) == 0 || !strings.HasPrefix(docs[0].DocID, tt.want) {
			t.Errorf("%q: got %+v, want first %s", tt.query, docs, tt.want)
		}
	}
}

func TestSearchSyntaxNeverErrors(t *testing.T) {
	ix := NewIndex(openDB(t), []string{copyDir(t, filepath.Join("testdata", "runbooks"))})
	mustSync(t, ix)
	for _, q := range []string{
		`"`, `""`, `"redis`, `redis"timeout`, `*`, `redis*`, `*redis`, `NEAR(redis timeout)`, `NEAR`,
		`redis AND`, `OR`, `NOT redis`, `(redis`, `redis)`, `-redis`, `redis -timeout`, `title:redis`,
		`body : x`, `{title body}: redis`, `^redis`, `+`, `redis + timeout`, `'`, `\`, "\x00", "a\x00b",
		`超时"`, `"超"`, `超*`, `!@#$%^&*()`, "\uFFFD", "\u202e504", strings.Repeat("超时 ", 200),
	} {
		if _, err := ix.Search(context.Background(), q, 8); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	docs := search(t, ix, "NEAR(redis timeout)", 3)
	if len(docs) == 0 || !strings.Contains(docs[0].DocID, "redis") {
		t.Errorf("operators should be plain words: %+v", docs)
	}
	if docs := search(t, ix, "!!! ???", 3); docs != nil {
		t.Errorf("query without terms: %+v", docs)
	}
}

func TestSearchTopK(t *testing.T) {
	ix := NewIndex(openDB(t), []string{copyDir(t, filepath.Join("testdata", "runbooks"))})
	mustSync(t, ix)
	for _, k := range []int{0, -1, MaxSearchTopK + 1} {
		if _, err := ix.Search(context.Background(), "timeout", k); err == nil {
			t.Errorf("top_k %d accepted", k)
		}
	}
	for _, k := range []int{1, 3, 8} {
		docs := search(t, ix, "timeout 超时", k)
		if len(docs) != k {
			t.Errorf("top_k %d returned %d", k, len(docs))
		}
		for i := 1; i < len(docs); i++ {
			if docs[i].Score > docs[i-1].Score || docs[i].Score <= 0 {
				t.Errorf("scores not positive and descending: %+v", docs)
			}
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("无关的内容 unrelated words here. ", 40)
	body := long + "Redis 连接超时 after 3000ms.\x07\x1b[31m bad \u202e" + long
	s := Snippet(body, matchTerms("redis 连接超时"), SnippetBytes)
	if len(s) > SnippetBytes || !utf8.ValidString(s) {
		t.Fatalf("snippet %d bytes, valid %v", len(s), utf8.ValidString(s))
	}
	if !strings.Contains(s, "Redis 连接超时 after 3000ms.") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Errorf("snippet not around the match: %q", s)
	}
	if strings.ContainsAny(s, "\x07\x1b\u202e\n") {
		t.Errorf("control characters kept: %q", s)
	}
	if got := Snippet("short body", nil, SnippetBytes); got != "short body" {
		t.Errorf("short body: %q", got)
	}
	for limit := 0; limit < 40; limit++ {
		if got := Snippet(body, matchTerms("redis"), limit); len(got) > limit || !utf8.ValidString(got) {
			t.Errorf("limit %d: %q", limit, got)
		}
	}
}

// TestSyncConcurrentHandles syncs one database file from two connections
// pools at once, as two superbiz processes would.
func TestSyncConcurrentHandles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	for i := 0; i < 30; i++ {
		writeFile(t, dir, fmt.Sprintf("r%02d.md", i), fmt.Sprintf("# R%d\n## A\nredis timeout %d\n## B\n支付超时 %d\n", i, i, i))
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db1, db2 := open(), open()
	applyMigrations(t, db1)
	errs := make(chan error, 2)
	for _, db := range []*sql.DB{db1, db2} {
		go func() {
			_, err := NewIndex(db, []string{dir}).Sync(context.Background(), nil)
			errs <- err
		}()
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent sync: %v", err)
		}
	}
	ix := NewIndex(db2, []string{dir})
	if st := mustSync(t, ix); st.Total != 60 || st.Skipped != 30 {
		t.Fatalf("after concurrent syncs: %+v", st)
	}
	var fts int
	if err := db2.QueryRow(`SELECT count(*) FROM kb_fts WHERE kb_fts MATCH '"redis"'`).Scan(&fts); err != nil || fts != 30 {
		t.Fatalf("fts rows %d (%v), want 30", fts, err)
	}
}

// A walk handed to the index (kb search starts it before the store opens)
// serves the next sync once, as the files were when it ran; a walk of other
// paths is ignored.
func TestSyncUsesWalkAhead(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.md", "# Alpha\nalpha text\n")
	ix := NewIndex(openDB(t), []string{dir})
	w := StartWalk(context.Background(), []string{dir})
	<-w.done
	writeFile(t, dir, "b.md", "# Beta\nbeta text\n")
	ix.WithWalk(w)
	if st := mustSync(t, ix); st.Files != 1 || st.Indexed != 1 {
		t.Errorf("sync with the walk made before b.md: %+v, want a.md alone", st)
	}
	if st := mustSync(t, ix); st.Files != 2 || st.Indexed != 1 {
		t.Errorf("the next sync walks again: %+v, want b.md indexed", st)
	}

	other := t.TempDir()
	writeFile(t, other, "c.md", "# Gamma\ngamma text\n")
	ix.WithWalk(StartWalk(context.Background(), []string{other}))
	if st := mustSync(t, ix); st.Files != 2 || st.Indexed != 0 || st.Removed != 0 {
		t.Errorf("a walk of other paths was used: %+v", st)
	}
}
