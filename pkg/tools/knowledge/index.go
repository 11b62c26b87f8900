package knowledge

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Column weights of bm25 over (title, body, meta): a match in the heading
// path counts three times a match in the body.
const (
	weightTitle = 3.0
	weightBody  = 1.0
	weightMeta  = 1.5
)

// MaxSearchTopK bounds Search for callers other than the tool (kb search).
const MaxSearchTopK = 100

// Batch sizes of Sync: one transaction per batch keeps a 10,000-section
// index fast without holding the run store's write lock for long.
const (
	batchFiles    = 256
	batchSections = 2048
)

// ErrNoRoots is returned when no knowledge path is configured, so the tool
// can answer UNAVAILABLE instead of an empty, misleading NO_EVIDENCE.
var ErrNoRoots = errors.New("no knowledge paths configured: set [knowledge] paths in the config")

// ErrRootMissing marks a configured knowledge path that does not exist.
var ErrRootMissing = errors.New("knowledge path not found")

// Index keeps the FTS5 index of the run store in step with the Markdown
// files under its roots and searches it. It is safe for concurrent use.
type Index struct {
	db    *sql.DB
	roots []string
	mu    sync.Mutex // serialises Sync within one process
}

// NewIndex binds the knowledge tables of db (migration 0002_knowledge.sql)
// to the runbook roots (directories or single files).
func NewIndex(db *sql.DB, roots []string) *Index {
	return &Index{db: db, roots: append([]string(nil), roots...)}
}

// Progress is reported after each file Sync looked at, for a progress bar.
type Progress struct {
	Done  int
	Total int
	// Path is the file's source path (root id + relative path).
	Path string
}

// Stats is what one Sync did, for `kb index` and tests.
type Stats struct {
	// Files is the number of Markdown files found under the roots.
	Files int
	// Indexed files were new or changed and were split again.
	Indexed int
	// Skipped files were unchanged (same size and mtime, or same hash).
	Skipped int
	// Removed files were in the index but are gone from the roots.
	Removed int
	// Sections is the number of sections written by this Sync.
	Sections int
	// Total is the number of sections in the index after this Sync.
	Total int
	// Excluded lists (at most MaxExclusionsListed) files left out of the
	// index, whole or in part, and why: links leading out of the roots,
	// dangling links, special files, pseudo file systems, files over the
	// bounds (a file cut to MaxSectionsPerFile on every Sync, split or not).
	Excluded []Exclusion
	// ExcludedTotal counts every exclusion, listed or not.
	ExcludedTotal int
}

// Document is one search hit, exactly the shape lookup_knowledge returns.
type Document struct {
	tools.DocRef
	Snippet string  `json:"snippet"`
	Score   float64 `json:"score"`
}

// root is one configured path with the id that prefixes its sources.
type root struct {
	abs      string // as configured, made absolute
	resolved string // with every symbolic link resolved: what is walked
	id       string
	file     bool // the root is a single Markdown file
}

// found is one Markdown file on disk.
type found struct {
	key     string // source: root id + "/" + slash-separated relative path
	root    string
	abs     string
	size    int64
	mtimeNs int64
}

// known is one kb_files row.
type known struct {
	root    string
	size    int64
	mtimeNs int64
	sha     string
}

// write is one file to (re)index or to touch in a batch.
type write struct {
	f     found
	sha   string
	page  Page
	touch bool // same content: update size, mtime and root only
}

// resolveRoots checks the roots (resolveRoot) and gives each a unique id:
// the base name of the directory (of the parent directory for a file root),
// with "-2", "-3" … appended when two roots share a name.
func resolveRoots(paths []string) ([]root, error) {
	if len(paths) == 0 {
		return nil, ErrNoRoots
	}
	used := map[string]int{}
	out := make([]root, 0, len(paths))
	for _, r := range paths {
		abs, resolved, file, err := resolveRoot(r)
		if err != nil {
			return nil, err
		}
		rt := root{abs: abs, resolved: resolved, file: file}
		base := filepath.Base(abs)
		if rt.file {
			base = filepath.Base(filepath.Dir(abs))
		}
		used[base]++
		rt.id = base
		if n := used[base]; n > 1 {
			rt.id = base + "-" + strconv.Itoa(n)
		}
		out = append(out, rt)
	}
	return out, nil
}

// indexFormat prefixes the digest stored in kb_files.sha256. A row from an
// older format (before runbook text was redacted and bounded, before text
// encodings were decoded and names split for ranking) is re-split even when
// its file did not change, so every stored section follows today's rules.
const indexFormat = "v3:"

// Marks that follow the content digest in kb_files.sha256, so every later
// Sync still reports a cut or refused file without reading it again.
const (
	// cutMark precedes the full section count of a file cut to
	// MaxSectionsPerFile.
	cutMark = "+sections="
	// refusedMark precedes the reason a file's text was refused (its
	// encoding); such a file has no sections.
	refusedMark = "+refused="
)

// digest is what kb_files.sha256 records of a file.
type digest struct {
	sum      string // hex SHA-256 of the file's bytes
	sections int    // full section count when cut (> MaxSectionsPerFile), else 0
	refused  string // why the text was refused, "" when indexed
}

// String is the stored form: indexFormat, the sum, then a mark.
func (d digest) String() string {
	switch {
	case d.refused != "":
		return indexFormat + d.sum + refusedMark + d.refused
	case d.sections > MaxSectionsPerFile:
		return indexFormat + d.sum + cutMark + strconv.Itoa(d.sections)
	}
	return indexFormat + d.sum
}

// parseDigest reads a stored digest; current is false for a row of an
// older format, which is re-split.
func parseDigest(stored string) (d digest, current bool) {
	rest, current := strings.CutPrefix(stored, indexFormat)
	if sum, reason, ok := strings.Cut(rest, refusedMark); ok {
		return digest{sum: sum, refused: reason}, current
	}
	sum, count, cut := strings.Cut(rest, cutMark)
	d.sum = sum
	if cut {
		d.sections, _ = strconv.Atoi(count) // an unparsable count reads as "not cut"
	}
	return d, current
}

// exclusion is the reason a file with this digest is listed, "" for none.
func (d digest) exclusion() string {
	switch {
	case d.refused != "":
		return d.refused
	case d.sections > MaxSectionsPerFile:
		return sectionsCut(d.sections)
	}
	return ""
}

// splitBounded decodes a runbook's bytes (Decode), redacts the text and
// splits it, keeping at most MaxSectionsPerFile sections; cut is how many
// were dropped. A file whose encoding is refused gives the exclusion reason.
func splitBounded(key string, data []byte) (page Page, cut int, refused string) {
	text, _, err := Decode(data)
	if err != nil {
		return Page{}, 0, ReasonEncoding + ": " + err.Error()
	}
	page = Split(path.Base(key), redact.String(text))
	page.FrontMatter = redact.String(page.FrontMatter)
	if n := len(page.Sections); n > MaxSectionsPerFile {
		page.Sections, cut = page.Sections[:MaxSectionsPerFile], n-MaxSectionsPerFile
	}
	return page, cut, ""
}

// Sync brings the index in step with the roots, incrementally: a file with
// the same size and mtime is skipped, a changed one is hashed (same hash:
// only its size and mtime are updated; else its sections are replaced), and
// files no longer under the roots are dropped. The index mirrors the current
// roots: files indexed from other roots are removed too. progress, when not
// nil, is called after every file.
func (ix *Index) Sync(ctx context.Context, progress func(Progress)) (st Stats, err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	roots, err := resolveRoots(ix.roots)
	if err != nil {
		return st, err
	}
	res, err := scan(ctx, roots)
	if err != nil {
		return st, err
	}
	files := res.files
	excluded := &res.excluded
	defer func() { st.Excluded, st.ExcludedTotal = excluded.sorted(), excluded.total }()
	st.Files = len(files)
	rows, err := ix.loadFiles(ctx)
	if err != nil {
		return st, err
	}

	var batch []write
	pending := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := ix.writeBatch(ctx, batch); err != nil {
			return err
		}
		batch, pending = batch[:0], 0
		return nil
	}
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("index runbooks: %w", err)
		}
		old, ok := rows[f.key]
		was, current := parseDigest(old.sha)
		current = ok && current
		switch {
		case current && old.size == f.size && old.mtimeNs == f.mtimeNs && old.root == f.root:
			delete(rows, f.key)
			st.Skipped++
			if why := was.exclusion(); why != "" {
				excluded.add(f.abs, why)
			}
			if was.refused != "" {
				st.Files--
			}
		default:
			data, err := readRunbook(f.abs)
			if err != nil {
				// Left in rows: a file that can no longer be read is dropped.
				excluded.add(f.abs, ReasonUnreadable+": "+unwrapPath(err).Error())
				st.Files--
				break
			}
			delete(rows, f.key)
			sum := sha256.Sum256(data)
			now := digest{sum: hex.EncodeToString(sum[:])}
			if current && was.sum == now.sum {
				batch = append(batch, write{f: f, sha: old.sha, touch: true})
				st.Skipped++
				if why := was.exclusion(); why != "" {
					excluded.add(f.abs, why)
				}
				if was.refused != "" {
					st.Files--
				}
				break
			}
			page, cut, refused := splitBounded(f.key, data)
			now.sections, now.refused = len(page.Sections)+cut, refused
			if why := now.exclusion(); why != "" {
				excluded.add(f.abs, why)
			}
			// A refused file keeps a row without sections, so it is not
			// read again until it changes.
			batch = append(batch, write{f: f, sha: now.String(), page: page})
			if refused != "" {
				st.Files--
				break
			}
			pending += len(page.Sections)
			st.Indexed++
			st.Sections += len(page.Sections)
		}
		if len(batch) >= batchFiles || pending >= batchSections {
			if err := flush(); err != nil {
				return st, err
			}
		}
		if progress != nil {
			progress(Progress{Done: i + 1, Total: len(files), Path: f.key})
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	if len(rows) > 0 {
		gone := make([]string, 0, len(rows))
		for k := range rows {
			gone = append(gone, k)
		}
		sort.Strings(gone)
		if err := ix.remove(ctx, gone); err != nil {
			return st, err
		}
		st.Removed = len(gone)
	}
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM kb_sections`).Scan(&st.Total); err != nil {
		return st, fmt.Errorf("count knowledge sections: %w", err)
	}
	return st, nil
}

// loadFiles reads kb_files into a map by source path.
func (ix *Index) loadFiles(ctx context.Context) (map[string]known, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, root, size, mtime_ns, sha256 FROM kb_files`)
	if err != nil {
		return nil, fmt.Errorf("read knowledge index (is migration 0002_knowledge applied?): %w", err)
	}
	defer rows.Close()
	out := map[string]known{}
	for rows.Next() {
		var k string
		var r known
		if err := rows.Scan(&k, &r.root, &r.size, &r.mtimeNs, &r.sha); err != nil {
			return nil, fmt.Errorf("read knowledge index: %w", err)
		}
		out[k] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read knowledge index: %w", err)
	}
	return out, nil
}

// writeBatch applies one batch of file writes in a single transaction.
func (ix *Index) writeBatch(ctx context.Context, batch []write) (err error) {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index runbooks: begin: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	upsert, err := tx.PrepareContext(ctx, `INSERT INTO kb_files(path, root, size, mtime_ns, sha256, indexed_at)
		VALUES(?, ?, ?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET root=excluded.root, size=excluded.size, mtime_ns=excluded.mtime_ns,
			sha256=excluded.sha256, indexed_at=CASE WHEN ? THEN kb_files.indexed_at ELSE excluded.indexed_at END`)
	if err != nil {
		return fmt.Errorf("index runbooks: prepare: %w", err)
	}
	defer upsert.Close()
	insSection, err := tx.PrepareContext(ctx, `INSERT INTO kb_sections(doc_id, file_path, anchor, title, source, body, ord)
		VALUES(?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("index runbooks: prepare: %w", err)
	}
	defer insSection.Close()
	insFTS, err := tx.PrepareContext(ctx, `INSERT INTO kb_fts(rowid, title, body, meta) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("index runbooks: prepare: %w", err)
	}
	defer insFTS.Close()

	now := time.Now().UnixNano()
	for _, w := range batch {
		if _, err := upsert.ExecContext(ctx, w.f.key, w.f.root, w.f.size, w.f.mtimeNs, w.sha, now, w.touch); err != nil {
			return fmt.Errorf("index runbook %s: %w", w.f.key, err)
		}
		if w.touch {
			continue
		}
		if err := deleteSections(ctx, tx, w.f.key); err != nil {
			return err
		}
		meta := Segment(w.f.key + "\n" + w.page.FrontMatter)
		for ord, s := range w.page.Sections {
			res, err := insSection.ExecContext(ctx, w.f.key+"#"+s.Anchor, w.f.key, s.Anchor, s.Title, w.f.key, s.Body, ord)
			if err != nil {
				return fmt.Errorf("index runbook %s section %q: %w", w.f.key, s.Anchor, err)
			}
			id, err := res.LastInsertId()
			if err != nil {
				return fmt.Errorf("index runbook %s section %q: %w", w.f.key, s.Anchor, err)
			}
			if _, err := insFTS.ExecContext(ctx, id, Segment(s.Title), Segment(s.Body), meta); err != nil {
				return fmt.Errorf("index runbook %s section %q: fts: %w", w.f.key, s.Anchor, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index runbooks: commit: %w", err)
	}
	return nil
}

// deleteSections removes a file's sections from kb_sections and kb_fts.
func deleteSections(ctx context.Context, tx *sql.Tx, key string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM kb_fts WHERE rowid IN (SELECT id FROM kb_sections WHERE file_path = ?)`, key); err != nil {
		return fmt.Errorf("drop index of runbook %s: %w", key, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM kb_sections WHERE file_path = ?`, key); err != nil {
		return fmt.Errorf("drop sections of runbook %s: %w", key, err)
	}
	return nil
}

// remove drops files that are gone, with their sections, in one transaction.
func (ix *Index) remove(ctx context.Context, keys []string) (err error) {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop removed runbooks: begin: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	for _, k := range keys {
		if err := deleteSections(ctx, tx, k); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM kb_files WHERE path = ?`, k); err != nil {
			return fmt.Errorf("drop removed runbook %s: %w", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("drop removed runbooks: commit: %w", err)
	}
	return nil
}

// rollback ends a failed transaction, reporting only a real rollback failure.
func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// Search returns the topK best sections for a free-text query (see the
// package doc for the query strategy). A query without any searchable term
// returns no documents and no error. It does not Sync.
func (ix *Index) Search(ctx context.Context, query string, topK int) ([]Document, error) {
	if topK < 1 || topK > MaxSearchTopK {
		return nil, fmt.Errorf("top_k %d out of range: use 1–%d", topK, MaxSearchTopK)
	}
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	snippetTerms := matchTerms(query)
	// Sections holding every term come first when there are enough of them:
	// ranking them costs only their number, not the number of sections that
	// hold any one common term.
	if len(terms) > 1 {
		docs, err := ix.rank(ctx, joinTerms(terms, " AND "), topK, snippetTerms)
		if err != nil || len(docs) >= topK {
			return docs, err
		}
	}
	return ix.rank(ctx, joinTerms(terms, " OR "), topK, snippetTerms)
}

// rank runs one MATCH expression and returns its topK sections by bm25.
func (ix *Index) rank(ctx context.Context, match string, topK int, snippetTerms []string) ([]Document, error) {
	// Rank inside FTS5 first, then read only the topK sections' text.
	rows, err := ix.db.QueryContext(ctx, `SELECT s.doc_id, s.title, s.source, s.body, hit.r
		FROM (SELECT rowid, bm25(kb_fts, ?, ?, ?) AS r FROM kb_fts WHERE kb_fts MATCH ? ORDER BY r LIMIT ?) AS hit
		JOIN kb_sections s ON s.id = hit.rowid
		ORDER BY hit.r, s.doc_id`, weightTitle, weightBody, weightMeta, match, topK)
	if err != nil {
		return nil, fmt.Errorf("search knowledge index: %w", err)
	}
	defer rows.Close()
	var docs []Document
	for rows.Next() {
		var d Document
		var body string
		var rank float64
		if err := rows.Scan(&d.DocID, &d.Title, &d.Source, &body, &rank); err != nil {
			return nil, fmt.Errorf("search knowledge index: %w", err)
		}
		d.DocID = clean(d.DocID, maxFieldBytes)
		// Stored text is redacted when indexed; redacting again as it is
		// served (idempotent) keeps a store written by an older version safe.
		d.Title = clean(redact.String(d.Title), maxFieldBytes)
		d.Source = clean(d.Source, maxFieldBytes)
		d.Snippet = Snippet(redact.String(body), snippetTerms, SnippetBytes)
		d.Score = score(rank)
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search knowledge index: %w", err)
	}
	return docs, nil
}

// score maps an FTS5 bm25 value (negative, lower is better) to a positive
// score where higher is better: -bm25, kept to four significant digits.
func score(rank float64) float64 {
	s := -rank
	if s <= 0 || math.IsNaN(s) {
		return 0
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(s, 'g', 4, 64), 64)
	if err != nil {
		return s
	}
	return v
}
