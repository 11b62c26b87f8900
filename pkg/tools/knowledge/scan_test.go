//go:build unix

package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"

	"github.com/superbiz/superbiz/internal/reliability"
)

// planted is text that must never reach the index from outside the roots.
const planted = "Zq7OutsideSecretLine"

// syncWithin runs Sync, failing the test if it has not returned within 30 s
// (a hang guard for FIFOs, not a speed assertion).
func syncWithin(t *testing.T, ix *Index) (Stats, error) {
	t.Helper()
	type result struct {
		st  Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := ix.Sync(context.Background(), nil)
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		return r.st, r.err
	case <-time.After(30 * time.Second):
		t.Fatal("Sync still running after 30 s: it blocked")
		return Stats{}, nil
	}
}

// reasons maps each excluded path to its reason.
func reasons(st Stats) map[string]string {
	m := map[string]string{}
	for _, e := range st.Excluded {
		m[e.Path] = e.Reason
	}
	return m
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// Links leading out of the roots are never followed and are reported; a
// dangling or looping link is skipped with a warning instead of failing the
// sync; a link that stays inside the roots is indexed under its own name.
func TestSyncLinks(t *testing.T) {
	outside := t.TempDir()
	secret := writeFile(t, outside, "credentials.md", "# Creds\naws_secret "+planted+"\n")
	writeFile(t, outside, "aws/config.md", "# AWS\n"+planted+"\n")
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "a.md", "# Alpha\nalpha text\n")
	writeFile(t, dir, "sub/b.md", "# Beta\nbeta text\n")
	other := filepath.Join(t.TempDir(), "more")
	writeFile(t, other, "c.md", "# Gamma\ngamma text\n")
	links := map[string]string{
		"out.md":      secret,
		"aws":         filepath.Join(outside, "aws"),
		"shadow.md":   "/etc/shadow",
		"dangling.md": filepath.Join(dir, "nope.md"),
		"gone.zip":    filepath.Join(dir, "nope.zip"), // not a runbook name: no warning
		"loop.md":     "loop.md",
		"alias.md":    filepath.Join("sub", "b.md"),
		"subalias":    "sub",
		"self":        ".",                          // a loop if it were followed
		"gamma.md":    filepath.Join(other, "c.md"), // inside another root
	}
	for name, target := range links {
		symlink(t, target, filepath.Join(dir, name))
	}
	ix := NewIndex(openDB(t), []string{dir, other})
	st, err := syncWithin(t, ix)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	got := reasons(st)
	want := map[string]string{
		"out.md":      ReasonOutside,
		"aws":         ReasonOutside,
		"dangling.md": ReasonDangling,
		"loop.md":     ReasonBadLink,
	}
	if _, err := os.Lstat("/etc/shadow"); err == nil {
		want["shadow.md"] = ReasonOutside
	} else {
		want["shadow.md"] = ReasonDangling
	}
	for name, reason := range want {
		if r := got[filepath.Join(dir, name)]; !strings.HasPrefix(r, reason) {
			t.Errorf("%s: reason %q, want %q", name, r, reason)
		}
	}
	for _, name := range []string{"alias.md", "subalias", "self", "gamma.md"} {
		if r, ok := got[filepath.Join(dir, name)]; ok {
			t.Errorf("%s stays inside the roots but was excluded: %s", name, r)
		}
	}
	if st.ExcludedTotal != len(want) {
		t.Errorf("ExcludedTotal %d, want %d: %+v", st.ExcludedTotal, len(want), st.Excluded)
	}
	ids := docIDs(t, ix)
	wantIDs := []string{"more/c.md#gamma", "runbooks/a.md#alpha", "runbooks/alias.md#beta", "runbooks/gamma.md#gamma", "runbooks/sub/b.md#beta"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("doc_ids %v, want %v", ids, wantIDs)
	}
	if docs := search(t, ix, planted, 5); len(docs) != 0 {
		t.Errorf("text from outside the roots is searchable: %+v", docs)
	}
	assertNotStored(t, ix.db, planted)
}

// assertNotStored fails when text is anywhere in the knowledge tables.
func assertNotStored(t *testing.T, db Tables, text string) {
	t.Helper()
	var n int
	err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM kb_sections WHERE instr(body, ?) > 0 OR instr(title, ?) > 0 OR instr(doc_id, ?) > 0`, text, text, text).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%q is stored in %d sections", text, n)
	}
}

// A root that is itself a link is walked where it leads; files in it are
// inside the roots.
func TestSyncRootIsLink(t *testing.T) {
	real := filepath.Join(t.TempDir(), "real")
	writeFile(t, real, "a.md", "# Alpha\nalpha\n")
	symlink(t, "a.md", filepath.Join(real, "b.md"))
	root := filepath.Join(t.TempDir(), "runbooks")
	symlink(t, real, root)
	ix := NewIndex(openDB(t), []string{root})
	st, err := syncWithin(t, ix)
	if err != nil || st.ExcludedTotal != 0 {
		t.Fatalf("sync: %+v %v", st, err)
	}
	if ids := docIDs(t, ix); !slices.Equal(ids, []string{"runbooks/a.md#alpha", "runbooks/b.md#alpha"}) {
		t.Errorf("doc_ids %v", ids)
	}
}

// A FIFO inside a tree is skipped and reported, never opened (it would block).
func TestSyncSpecialFileInTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "a.md", "# Alpha\nalpha\n")
	fifo := filepath.Join(dir, "pipe.md")
	fixture.Mkfifo(t, fifo)
	symlink(t, "pipe.md", filepath.Join(dir, "pipe-link.md"))
	ix := NewIndex(openDB(t), []string{dir})
	st, err := syncWithin(t, ix)
	if err != nil {
		t.Fatal(err)
	}
	got := reasons(st)
	if got[fifo] != ReasonSpecial || got[filepath.Join(dir, "pipe-link.md")] != ReasonSpecial || st.Files != 1 || st.Indexed != 1 {
		t.Errorf("stats %+v", st)
	}
}

// A knowledge path that is a special file or on a pseudo file system is
// refused with ErrRootInvalid naming it, at once.
func TestSyncRootRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	fixture.Mkfifo(t, fifo)
	type rootCase struct{ label, path, says string }
	roots := []rootCase{
		{"a FIFO", fifo, "is a named pipe (FIFO)"},
		{"/dev/zero", "/dev/zero", "is a device"},
		{"/dev/null", "/dev/null", "is a device"},
	}
	if runtime.GOOS == "linux" {
		roots = append(roots,
			rootCase{"/proc", "/proc", "is on the proc pseudo file system"},
			rootCase{"/proc/self", "/proc/self", "is on the proc pseudo file system"},
			rootCase{"/sys", "/sys", "is on the sysfs pseudo file system"},
		)
	}
	for _, r := range roots {
		if _, err := os.Stat(r.path); err != nil {
			t.Logf("%s: %v", r.path, err)
			continue
		}
		start := time.Now()
		_, err := syncWithin(t, NewIndex(openDB(t), []string{r.path}))
		if !errors.Is(err, ErrRootInvalid) || !strings.Contains(err.Error(), r.path+" "+r.says) {
			t.Errorf("%s: %v", r.path, err)
		}
		reliability.Record(t, reliability.SectionBombs, "knowledge path: "+r.label, map[string]any{
			"elapsed_ms": float64(time.Since(start).Microseconds()) / 1000, "outcome": "refused, exit 2",
		})
	}
	if _, err := Inspect(context.Background(), []string{"/dev/zero"}); !errors.Is(err, ErrRootInvalid) {
		t.Errorf("Inspect /dev/zero: %v", err)
	}
}

// A file over MaxFileBytes is left out (never read), a file with more than
// MaxSectionsPerFile sections is cut to that many, both are reported, and
// the other runbooks are indexed as usual.
func TestSyncBounds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "small.md", "# Small\nHikariPool exhausted\n")
	big := filepath.Join(dir, "huge.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(85 << 20); err != nil { // sparse: 85 MB never written
		t.Fatal(err)
	}
	f.Close()
	var b strings.Builder
	for i := range MaxSectionsPerFile + 50 {
		fmt.Fprintf(&b, "## Step %d\nstep body %d\n", i, i)
	}
	many := writeFile(t, dir, "many.md", b.String())
	atLimit := writeFile(t, dir, "limit.md", "# "+strings.Repeat("x", MaxFileBytes-3)+"\n")

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ix := NewIndex(openDB(t), []string{dir})
	st, err := syncWithin(t, ix)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	got := reasons(st)
	if !strings.HasPrefix(got[big], ReasonTooLarge) || !strings.HasPrefix(got[many], ReasonSections) || st.ExcludedTotal != 2 {
		t.Fatalf("exclusions %+v", st.Excluded)
	}
	if _, ok := got[atLimit]; ok {
		t.Errorf("a file of exactly MaxFileBytes was excluded")
	}
	if st.Files != 3 || st.Indexed != 3 {
		t.Errorf("stats %+v", st)
	}
	var n int
	if err := ix.db.QueryRowContext(context.Background(), `SELECT count(*) FROM kb_sections WHERE file_path = 'runbooks/many.md'`).Scan(&n); err != nil || n != MaxSectionsPerFile {
		t.Errorf("many.md has %d sections (%v), want %d", n, err, MaxSectionsPerFile)
	}
	if docs := search(t, ix, "HikariPool", 1); len(docs) != 1 || docs[0].Source != "runbooks/small.md" {
		t.Errorf("the small runbook is not found: %+v", docs)
	}
	reliability.Record(t, reliability.SectionBombs, "knowledge: 85 MB runbook and a 306-section runbook", map[string]any{
		"elapsed_ms": float64(elapsed.Microseconds()) / 1000, "allocated_mb": float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20),
		"sections_kept": n, "outcome": "85 MB file skipped, sections capped, both reported",
	})
	// Unchanged, the cut file is still reported (no re-read needed).
	if st := mustSync(t, ix); st.Skipped != 3 || !strings.HasPrefix(reasons(st)[many], ReasonSections) || st.ExcludedTotal != 2 {
		t.Errorf("second sync: %+v", st)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(many, later, later); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"sync after a touch", "the sync after that"} {
		if st := mustSync(t, ix); st.Skipped != 3 || !strings.HasPrefix(reasons(st)[many], ReasonSections) {
			t.Errorf("%s: %+v", when, st)
		}
	}
	inv, err := Inspect(context.Background(), []string{dir})
	if err != nil || inv.Files != 3 || inv.ExcludedTotal != 2 {
		t.Errorf("Inspect: %+v %v", inv, err)
	}
}

// Runbook text is redacted before it is stored and again as it is served;
// rows indexed by an older version (no format prefix) are re-split.
func TestSyncRedacts(t *testing.T) {
	const secret = "hunter2SecretPw"
	dir := filepath.Join(t.TempDir(), "runbooks")
	p := writeFile(t, dir, "db.md", "---\ntoken: ghp_1234567890abcdefghijABCDEFGHIJ123456\n---\n# DB login\nconnect with password="+secret+" to the primary\n")
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	assertNotStored(t, ix.db, secret)
	docs := search(t, ix, "connect primary", 1)
	if len(docs) != 1 || strings.Contains(docs[0].Snippet, secret) || !strings.Contains(docs[0].Snippet, egress.Marker) {
		t.Fatalf("served: %+v", docs)
	}
	if docs := search(t, ix, "ghp_1234567890abcdefghijABCDEFGHIJ123456", 1); len(docs) != 0 {
		t.Errorf("front matter token is searchable: %+v", docs)
	}

	// A store written before redaction: the same file, unchanged on disk,
	// with its raw text in kb_sections and an unprefixed digest.
	if _, err := ix.db.ExecContext(context.Background(), `UPDATE kb_sections SET body = 'connect with password=`+secret+` to the primary'`); err != nil {
		t.Fatal(err)
	}
	docs = search(t, ix, "connect primary", 1)
	if len(docs) != 1 || strings.Contains(docs[0].Snippet, secret) {
		t.Fatalf("an unredacted stored body was served: %+v", docs)
	}
	if _, err := ix.db.ExecContext(context.Background(), `UPDATE kb_files SET sha256 = substr(sha256, 4)`); err != nil {
		t.Fatal(err)
	}
	if st := mustSync(t, ix); st.Indexed != 1 {
		t.Fatalf("an old-format row was not re-split: %+v (file %s)", st, p)
	}
	assertNotStored(t, ix.db, secret)
}

// readRunbook, given a path that became a link or a FIFO after the scan,
// neither follows the link nor waits on the FIFO.
func TestReadRunbookRefusesSwaps(t *testing.T) {
	dir := t.TempDir()
	secret := writeFile(t, t.TempDir(), "secret.md", planted)
	link := filepath.Join(dir, "swapped.md")
	symlink(t, secret, link)
	if data, err := readRunbook(link); err == nil {
		t.Errorf("read through a link: %q", data)
	}
	fifo := filepath.Join(dir, "pipe.md")
	fixture.Mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() { _, err := readRunbook(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, errNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a speed assertion
		t.Fatal("readRunbook blocked on a FIFO")
	}
}

// link makes a hard link or skips the test where the file system has none
// (a failure under CI, whose temporary directory supports them).
func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, name); err != nil {
		testenv.Missing(t, "hard link: "+err.Error(), "CI's temporary directory supports hard links")
	}
}

// A runbook with more than one name (a hard link to a file outside the
// paths, or one linked after it was indexed) is left out with its reason by
// Sync and Inspect alike, and its text is neither indexed nor kept; a
// runbook with one name is indexed as usual.
func TestSyncHardLink(t *testing.T) {
	secret := writeFile(t, t.TempDir(), "credentials.md", "# Creds\naws_secret "+planted+"\n")
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "a.md", "# Alpha\nalpha text\n")
	later := writeFile(t, dir, "later.md", "# Later\nlater text\n")
	linked := filepath.Join(dir, "creds.md")
	link(t, secret, linked)
	ix := NewIndex(openDB(t), []string{dir})
	st, err := syncWithin(t, ix)
	if err != nil {
		t.Fatal(err)
	}
	if r := reasons(st)[linked]; r != ReasonHardLink+" (2 names)" || st.ExcludedTotal != 1 {
		t.Errorf("hard link to an outside file: reason %q, stats %+v", r, st)
	}
	if ids := docIDs(t, ix); !slices.Equal(ids, []string{"runbooks/a.md#alpha", "runbooks/later.md#later"}) {
		t.Errorf("doc_ids %v", ids)
	}
	assertNotStored(t, ix.db, planted)

	// linked once indexed (its mtime unchanged): dropped on the next sync
	link(t, later, filepath.Join(t.TempDir(), "elsewhere.md"))
	st, err = syncWithin(t, ix)
	if err != nil {
		t.Fatal(err)
	}
	if r := reasons(st)[later]; !strings.HasPrefix(r, ReasonHardLink) || st.Removed != 1 {
		t.Errorf("runbook linked after indexing: reason %q, stats %+v", r, st)
	}
	if ids := docIDs(t, ix); !slices.Equal(ids, []string{"runbooks/a.md#alpha"}) {
		t.Errorf("doc_ids %v", ids)
	}
	inv, err := Inspect(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Files != 1 || inv.ExcludedTotal != 2 {
		t.Errorf("Inspect: %+v", inv)
	}
	if data, err := readRunbook(linked); err == nil || !strings.Contains(err.Error(), ReasonHardLink) {
		t.Errorf("readRunbook of a hard link: %q, %v", data, err)
	}
	reliability.Record(t, reliability.SectionBombs, "hard-linked runbooks", map[string]any{
		"outcome": "2 refused with their reason, 0 leaked"})
}

// The listed exclusions are the first MaxExclusionsListed in walk order and
// the MaxFiles cap keeps the first files in walk order, although the walk
// reads file info in concurrent batches: hard-linked Markdown files (whose
// exclusion comes from that info) interleave with documents excluded by
// name alone.
func TestScanKeepsWalkOrder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	outside := t.TempDir()
	var want []string // exclusions in walk (lexical) order
	for i := range 3 * statBatch {
		md := filepath.Join(dir, fmt.Sprintf("f%04d.md", i))
		if i%7 == 0 {
			src := writeFile(t, outside, fmt.Sprintf("o%04d.md", i), "# Outside\n")
			link(t, src, md)
			want = append(want, md)
		} else {
			writeFile(t, dir, filepath.Base(md), "# Runbook\n")
		}
		doc := writeFile(t, dir, fmt.Sprintf("f%04d.txt", i), "notes\n")
		want = append(want, doc)
	}
	res, err := scan(context.Background(), mustRoots(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.excluded.total != len(want) {
		t.Fatalf("excluded %d, want %d", res.excluded.total, len(want))
	}
	got := make([]string, 0, len(res.excluded.list))
	for _, e := range res.excluded.sorted() {
		got = append(got, e.Path)
	}
	if !slices.Equal(got, want[:MaxExclusionsListed]) {
		t.Errorf("listed exclusions are not the first %d in walk order:\n got %v\nwant %v", MaxExclusionsListed, got, want[:MaxExclusionsListed])
	}
	if n := len(res.files); n != 3*statBatch-(3*statBatch+6)/7 {
		t.Errorf("%d files found", n)
	}
}

// More than MaxFiles runbooks: the first MaxFiles in walk order are kept and
// the rest are excluded with ReasonTooMany.
func TestScanMaxFiles(t *testing.T) {
	testenv.SkipShort(t, "writes 10,010 files")
	dir := filepath.Join(t.TempDir(), "runbooks")
	const extra = 10
	for i := range MaxFiles + extra {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i/500))
		writeFile(t, sub, fmt.Sprintf("r%05d.md", i), "")
	}
	res, err := scan(context.Background(), mustRoots(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.files) != MaxFiles || res.excluded.total != extra {
		t.Fatalf("%d files kept, %d excluded", len(res.files), res.excluded.total)
	}
	for i, e := range res.excluded.sorted() {
		name := filepath.Join(dir, fmt.Sprintf("d%02d", (MaxFiles+i)/500), fmt.Sprintf("r%05d.md", MaxFiles+i))
		if e.Path != name || !strings.HasPrefix(e.Reason, ReasonTooMany) {
			t.Errorf("exclusion %d: %v, want %s: %s", i, e, name, ReasonTooMany)
		}
	}
}

func mustRoots(t *testing.T, paths ...string) []root {
	t.Helper()
	roots, err := resolveRoots(paths)
	if err != nil {
		t.Fatal(err)
	}
	return roots
}
