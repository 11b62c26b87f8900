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
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
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
	db    Tables
	roots []string
	mu    sync.Mutex // serialises Sync within one process
	// embedName and embedder, when set (WithEmbedder), make search
	// semantic: sections are embedded at Sync, rankings fused at Search.
	embedName string
	embedder  model.Embedder
	// ahead is a walk started before the next sync (WithWalk), used once.
	ahead *Walk
}

// Walk is a walk of the runbook paths that runs while the caller does
// other work: a sync starts one beside its read of the index, and `kb
// search` starts one before it opens the run store (WithWalk), since the
// walk of a thousand runbooks is most of an unchanged sync.
type Walk struct {
	paths []string
	done  chan struct{}
	res   scanResult
	err   error
}

// StartWalk resolves and walks the runbook paths in the background.
func StartWalk(ctx context.Context, paths []string) *Walk {
	w := &Walk{paths: append([]string(nil), paths...), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		roots, err := resolveRoots(w.paths)
		if err != nil {
			w.err = err
			return
		}
		w.res, w.err = scan(ctx, roots)
	}()
	return w
}

// WithWalk hands the index a walk of its paths started just before; the
// next sync uses it instead of walking again (a walk of other paths is
// ignored). Only a caller that syncs at once should give one: the walk
// says what the files were when it ran.
func (ix *Index) WithWalk(w *Walk) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.ahead = w
}

// NewIndex binds the knowledge tables of db (Migrations, applied) to the
// runbook roots (directories or single files).
func NewIndex(db Tables, roots []string) *Index {
	return &Index{db: db, roots: append([]string(nil), roots...)}
}

// CheckRoots applies Sync's refusals of the knowledge paths (ErrNoRoots,
// ErrRootMissing, ErrRootInvalid) without walking them, so a caller can
// report a configuration error before the tool syncs.
func (ix *Index) CheckRoots() error {
	_, err := resolveRoots(ix.roots)
	return err
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
	// Embedding is what was done about vectors; nil without an embedding
	// model (WithEmbedder).
	Embedding *Embedding
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
// encodings were decoded and names split for ranking, before setext headings
// started sections) is re-split even when its file did not change, so every
// stored section follows today's rules.
const indexFormat = "v4:"

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

// fileWords is what a file's name adds to the title column of each of its
// sections: its base name without the extension, with the words of a
// CamelCase name ("KubePodCrashLooping.md" → kube pod crash looping); '-'
// and '_' already separate words for the tokenizer.
func fileWords(key string) string {
	base := path.Base(key)
	base = strings.TrimSuffix(base, pathExt(base))
	return base + " " + identWords(base)
}

// titleText is the title column of a section: the heading path, the words
// of the identifiers in it, and its file's name words, so alert and rule
// names are matched at the title's weight however they are written.
func titleText(title, name string) string {
	return Segment(title + "\n" + identWords(title) + "\n" + name)
}

// dropDuplicates removes every section whose heading path and text repeat
// an earlier one of the same file (a pasted block, a template left twice).
func dropDuplicates(sections []Section) []Section {
	type key struct{ title, body string }
	seen := make(map[key]bool, len(sections))
	out := sections[:0]
	for _, s := range sections {
		k := key{s.Title, s.Body}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}

// splitBounded decodes a runbook's bytes (Decode), redacts the text and
// splits it, keeping at most MaxSectionsPerFile sections; cut is how many
// were dropped. A file whose encoding is refused gives the exclusion reason.
func splitBounded(key string, data []byte) (page Page, cut int, refused string) {
	text, _, err := Decode(data)
	if err != nil {
		return Page{}, 0, ReasonEncoding + ": " + err.Error()
	}
	page = Split(path.Base(key), egress.Mask(text).String())
	page.Sections = dropDuplicates(page.Sections)
	page.FrontMatter = egress.Mask(page.FrontMatter).String()
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
func (ix *Index) Sync(ctx context.Context, progress func(Progress)) (Stats, error) {
	return ix.sync(ctx, progress, true)
}

// sync is Sync; total says whether to count the index's sections into
// Stats.Total, which reads the whole section index (a quarter of an
// unchanged sync of a thousand runbooks): a search before which the index is
// synced has no use for the figure.
func (ix *Index) sync(ctx context.Context, progress func(Progress), total bool) (st Stats, err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// The walk waits on the file system and loadFiles on SQLite: they run
	// side by side, and the walk may have started before the store opened.
	w := ix.ahead
	ix.ahead = nil
	if w == nil || !slices.Equal(w.paths, ix.roots) {
		w = StartWalk(ctx, ix.roots)
	}
	rows, loadErr := ix.loadFiles(ctx)
	<-w.done
	if w.err != nil {
		return st, w.err
	}
	if loadErr != nil {
		return st, loadErr
	}
	res := w.res
	files := res.files
	excluded := &res.excluded
	defer func() { st.Excluded, st.ExcludedTotal = excluded.sorted(), excluded.total }()
	st.Files = len(files)

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
	if ix.embedder != nil {
		if st.Embedding, err = ix.embedMissing(ctx); err != nil {
			return st, err
		}
	}
	if !total {
		return st, nil
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
		return nil, fmt.Errorf("read knowledge index (are the knowledge migrations applied?): %w", err)
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
		name := fileWords(w.f.key)
		for ord, s := range w.page.Sections {
			res, err := insSection.ExecContext(ctx, w.f.key+"#"+s.Anchor, w.f.key, s.Anchor, s.Title, w.f.key, s.Body, ord)
			if err != nil {
				return fmt.Errorf("index runbook %s section %q: %w", w.f.key, s.Anchor, err)
			}
			id, err := res.LastInsertId()
			if err != nil {
				return fmt.Errorf("index runbook %s section %q: %w", w.f.key, s.Anchor, err)
			}
			if _, err := insFTS.ExecContext(ctx, id, titleText(s.Title, name), Segment(s.Body), meta); err != nil {
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
	if _, err := tx.ExecContext(ctx, `DELETE FROM kb_vectors WHERE section_id IN (SELECT id FROM kb_sections WHERE file_path = ?)`, key); err != nil {
		return fmt.Errorf("drop vectors of runbook %s: %w", key, err)
	}
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

// MaxSectionsPerResult is how many sections of one file a search returns
// among its topK when other files match too, so one runbook's near-identical
// sections cannot fill the whole result.
const MaxSectionsPerResult = 2

// candidateFactor: a search ranks topK×candidateFactor sections, so that
// after dropping duplicates and capping each file there are still topK left.
const candidateFactor = 4

// Search returns the topK best sections for a free-text query (see the
// package doc for the query strategy): at most MaxSectionsPerResult of one
// file unless too few files match, and never two sections with the same
// text. With an embedder (WithEmbedder) that answers and stored vectors,
// the BM25 candidates and the query's nearest sections are fused by
// reciprocal rank; otherwise the result is BM25's alone. A query without any
// searchable term returns no documents and no error. It does not Sync.
func (ix *Index) Search(ctx context.Context, query string, topK int) ([]Document, error) {
	if topK < 1 || topK > MaxSearchTopK {
		return nil, fmt.Errorf("top_k %d out of range: use 1–%d", topK, MaxSearchTopK)
	}
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	snippetTerms := matchTerms(query)
	if ix.embedder == nil {
		hits, err := ix.lexical(ctx, terms, topK)
		if err != nil {
			return nil, err
		}
		return documents(hits, snippetTerms), nil
	}
	lex, err := ix.lexical(ctx, terms, topK*candidateFactor)
	if err != nil {
		return nil, err
	}
	hits, ok, err := ix.fused(ctx, query, lex, topK)
	if err != nil {
		return nil, err
	}
	if !ok {
		// BM25 exactly as without an embedder.
		if hits, err = ix.lexical(ctx, terms, topK); err != nil {
			return nil, err
		}
	}
	return documents(hits, snippetTerms), nil
}

// lexical is the BM25 search: the topK best sections for the query terms.
func (ix *Index) lexical(ctx context.Context, terms []term, topK int) ([]hit, error) {
	parts := coverageAtoms(terms)
	// Sections holding every term come first when there are enough of them:
	// ranking them costs only their number, not the number of sections that
	// hold any one common term.
	if len(terms) > 1 || len(terms[0].parts) > 0 {
		hits, diverse, err := ix.rank(ctx, everyTerm(terms), topK, parts)
		if err != nil {
			return nil, err
		}
		if diverse {
			return hits, nil
		}
	}
	hits, _, err := ix.rank(ctx, anyTerm(terms), topK, parts)
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// maxCoverageAtoms bounds the atoms one search counts; a longer query is
// ranked by bm25 alone.
const maxCoverageAtoms = 32

// coverageAtoms are the query's separate concepts: each term (or one of its
// synonyms), and each word of a CamelCase identifier (matched by itself or
// by the whole identifier). A section matching more of them ranks first,
// and of those one matching more in the query's own words; nil when there
// is only one without synonyms, or too many to count.
func coverageAtoms(terms []term) []atom {
	var out []atom
	synonyms := false
	for _, t := range terms {
		if len(t.parts) == 0 {
			a := atom{forms: []string{roughStem(t.text)}, prefix: t.prefix}
			for _, alt := range t.alts {
				a.alts = append(a.alts, roughStem(alt))
			}
			synonyms = synonyms || len(a.alts) > 0
			out = append(out, a)
			continue
		}
		for _, p := range t.parts {
			out = append(out, atom{forms: []string{roughStem(p), roughStem(t.text)}})
		}
	}
	if (len(out) < 2 && !synonyms) || len(out) > maxCoverageAtoms {
		return nil
	}
	return out
}

// hit is one ranked section before it becomes a Document.
type hit struct {
	id                         int64
	docID, title, source, body string
	rank                       float64 // bm25: negative, lower is better
	covered                    int     // coverage atoms the section matches
	literal                    int     // of those, the ones in the query's own words (one-atom queries)
	fused                      float64 // reciprocal rank fusion score, 0 for BM25 only
}

// words is the rough token set of the hit's section as the index holds it
// (title, identifier and file name words, body, source path), for counting
// the atoms it covers.
func (h hit) words() map[string]bool {
	return roughTokens(titleText(h.title, fileWords(h.source)) + " " + h.body + " " + h.source)
}

// rank runs one MATCH expression over topK×candidateFactor sections by
// bm25, orders them by how many of the atoms they match (then how many in
// the query's own words), then bm25, and
// returns the topK that diversify keeps, and whether they came from enough
// files without filling.
func (ix *Index) rank(ctx context.Context, match string, topK int, atoms []atom) ([]hit, bool, error) {
	// Rank inside FTS5 first, then read only the candidates' text.
	rows, err := ix.db.QueryContext(ctx, `SELECT s.id, s.doc_id, s.title, s.source, s.body, hit.r
		FROM (SELECT rowid, bm25(kb_fts, ?, ?, ?) AS r FROM kb_fts WHERE kb_fts MATCH ? ORDER BY r LIMIT ?) AS hit
		JOIN kb_sections s ON s.id = hit.rowid
		ORDER BY hit.r, s.doc_id`, weightTitle, weightBody, weightMeta, match, topK*candidateFactor)
	if err != nil {
		return nil, false, fmt.Errorf("search knowledge index: %w", err)
	}
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.docID, &h.title, &h.source, &h.body, &h.rank); err != nil {
			return nil, false, fmt.Errorf("search knowledge index: %w", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("search knowledge index: %w", err)
	}
	// Counted when every term was required too: a section may hold a term
	// only by a synonym. A one-concept query prefers its own word to a
	// synonym ("超时" the Chinese runbook before the English one); with more
	// concepts, how many are covered and then bm25 decide, since a
	// paraphrase is written in other words than the runbook's.
	if len(atoms) > 0 {
		for i := range hits {
			n, literal := covered(hits[i].words(), atoms)
			hits[i].covered = n
			if len(atoms) == 1 {
				hits[i].literal = literal
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return moreCovered(hits[i], hits[j]) })
	}
	kept, diverse := diversify(hits, topK)
	return kept, diverse, nil
}

// diversify keeps the best topK of hits (in rank order): a section whose
// text equals a better one's is dropped (a runbook copied into two folders),
// and a file's sections past its best MaxSectionsPerResult wait until every
// other file's have been taken; they fill the result only when fewer files
// match. diverse reports that no filling was needed.
func diversify(hits []hit, topK int) (kept []hit, diverse bool) {
	perFile := map[string]int{}
	seen := map[string]bool{}
	var waiting []hit
	for _, h := range hits {
		if seen[h.body] {
			continue
		}
		seen[h.body] = true
		if perFile[h.source] >= MaxSectionsPerResult {
			waiting = append(waiting, h)
			continue
		}
		perFile[h.source]++
		kept = append(kept, h)
	}
	if len(kept) >= topK {
		return kept[:topK], true
	}
	kept = append(kept, waiting[:min(len(waiting), topK-len(kept))]...)
	sort.SliceStable(kept, func(i, j int) bool { return better(kept[i], kept[j]) })
	return kept, false
}

// better orders hits: more atoms covered, more in the query's own words,
// then a better bm25.
func better(a, b hit) bool {
	if a.covered != b.covered || a.literal != b.literal {
		return moreCovered(a, b)
	}
	return a.rank < b.rank
}

// moreCovered orders hits by atoms covered, then by those in the query's
// own words.
func moreCovered(a, b hit) bool {
	if a.covered != b.covered {
		return a.covered > b.covered
	}
	return a.literal > b.literal
}

// documents turns ranked hits into the Documents lookup_knowledge returns.
func documents(hits []hit, snippetTerms []string) []Document {
	docs := make([]Document, 0, len(hits))
	for _, h := range hits {
		var d Document
		d.DocID = clean(h.docID, maxFieldBytes)
		// Stored text is redacted when indexed; redacting again as it is
		// served (idempotent) keeps a store written by an older version safe.
		d.Title = clean(egress.Mask(h.title).String(), maxFieldBytes)
		d.Source = clean(h.source, maxFieldBytes)
		d.Snippet = Snippet(egress.Mask(h.body).String(), snippetTerms, SnippetBytes)
		d.Score = score(h)
		docs = append(docs, d)
	}
	return docs
}

// score is a hit's score, higher is better and in result order: the number
// of query atoms its section matches (0 for a one-atom query) plus its bm25
// relevance s = -bm25 mapped into [0, 1) as s/(1+s); kept to four
// significant digits. It is comparable only within one search.
func score(h hit) float64 {
	s := -h.rank
	if s < 0 || math.IsNaN(s) {
		s = 0
	}
	// literal ≤ maxCoverageAtoms and s/(1+s) < 1: the fraction orders ties
	// of covered without ever reaching the next whole atom.
	v := float64(h.covered) + (float64(h.literal)+s/(1+s))/(maxCoverageAtoms+2)
	if h.fused > 0 {
		v = h.fused
	}
	if r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64); err == nil {
		return r
	}
	return v
}
