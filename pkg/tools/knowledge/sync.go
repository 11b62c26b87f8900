package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/superbiz/superbiz/pkg/egress"
)

// Batch sizes of Sync: one transaction per batch keeps a 10,000-section
// index fast without holding the run store's write lock for long.
const (
	batchFiles    = 256
	batchSections = 2048
)

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
	res, rows, err := ix.walkBesideLoad(ctx)
	if err != nil {
		return st, err
	}
	excluded := &res.excluded
	defer func() { st.Excluded, st.ExcludedTotal = excluded.sorted(), excluded.total }()
	st.Files = len(res.files)
	b := batch{ix: ix}
	for i, f := range res.files {
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("index runbooks: %w", err)
		}
		if w, ok := syncFile(f, rows, &st, excluded); ok {
			if err := b.add(ctx, w); err != nil {
				return st, err
			}
		}
		if progress != nil {
			progress(Progress{Done: i + 1, Total: len(res.files), Path: f.key})
		}
	}
	if err := b.flush(ctx); err != nil {
		return st, err
	}
	if st.Removed, err = ix.removeGone(ctx, rows); err != nil {
		return st, err
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

// walkBesideLoad gives the walk of the roots and the kb_files rows. The
// walk waits on the file system and loadFiles on SQLite: they run side by
// side, and the walk may have started before the store opened (WithWalk).
// ix.mu is held.
func (ix *Index) walkBesideLoad(ctx context.Context) (scanResult, map[string]known, error) {
	w := ix.ahead
	ix.ahead = nil
	if w == nil || !slices.Equal(w.paths, ix.roots) {
		w = StartWalk(ctx, ix.roots)
	}
	rows, loadErr := ix.loadFiles(ctx)
	<-w.done
	if w.err != nil {
		return scanResult{}, nil, w.err
	}
	if loadErr != nil {
		return scanResult{}, nil, loadErr
	}
	return w.res, rows, nil
}

// syncFile decides what one file found under the roots needs: nothing
// (same size, mtime and root), a touch (same bytes), or its sections split
// again (ok reports a write). It counts the file into st, its exclusion
// into x, and takes its row out of rows; a file that can no longer be read
// stays there, so it is dropped with the files that are gone.
func syncFile(f found, rows map[string]known, st *Stats, x *exclusions) (w write, ok bool) {
	old, indexed := rows[f.key]
	was, current := parseDigest(old.sha)
	current = indexed && current
	if current && old.size == f.size && old.mtimeNs == f.mtimeNs && old.root == f.root {
		delete(rows, f.key)
		unchanged(st, x, f, was)
		return write{}, false
	}
	data, err := readRunbook(f.abs)
	if err != nil {
		x.add(f.abs, ReasonUnreadable+": "+unwrapPath(err).Error())
		st.Files--
		return write{}, false
	}
	delete(rows, f.key)
	sum := sha256.Sum256(data)
	now := digest{sum: hex.EncodeToString(sum[:])}
	if current && was.sum == now.sum {
		unchanged(st, x, f, was)
		return write{f: f, sha: old.sha, touch: true}, true
	}
	page, cut, refused := splitBounded(f.key, data)
	now.sections, now.refused = len(page.Sections)+cut, refused
	if why := now.exclusion(); why != "" {
		x.add(f.abs, why)
	}
	// A refused file keeps a row without sections, so it is not read again
	// until it changes.
	if refused != "" {
		st.Files--
	} else {
		st.Indexed++
		st.Sections += len(page.Sections)
	}
	return write{f: f, sha: now.String(), page: page}, true
}

// unchanged counts a file whose content is as indexed: skipped, still
// listed when it was cut or refused, and not counted as a file when refused.
func unchanged(st *Stats, x *exclusions, f found, was digest) {
	st.Skipped++
	if why := was.exclusion(); why != "" {
		x.add(f.abs, why)
	}
	if was.refused != "" {
		st.Files--
	}
}

// batch gathers file writes and applies them batchFiles files or
// batchSections sections at a time, one transaction each.
type batch struct {
	ix       *Index
	writes   []write
	sections int
}

// add queues one write, applying the batch when it is full.
func (b *batch) add(ctx context.Context, w write) error {
	b.writes = append(b.writes, w)
	b.sections += len(w.page.Sections)
	if len(b.writes) >= batchFiles || b.sections >= batchSections {
		return b.flush(ctx)
	}
	return nil
}

// flush applies the queued writes, if any.
func (b *batch) flush(ctx context.Context) error {
	if len(b.writes) == 0 {
		return nil
	}
	if err := b.ix.writeBatch(ctx, b.writes); err != nil {
		return err
	}
	b.writes, b.sections = b.writes[:0], 0
	return nil
}

// removeGone drops the files left in rows (gone from the roots, or no
// longer readable), in path order, and says how many.
func (ix *Index) removeGone(ctx context.Context, rows map[string]known) (int, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	gone := make([]string, 0, len(rows))
	for k := range rows {
		gone = append(gone, k)
	}
	sort.Strings(gone)
	if err := ix.remove(ctx, gone); err != nil {
		return 0, err
	}
	return len(gone), nil
}
