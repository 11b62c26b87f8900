package knowledge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

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
func (ix *Index) writeBatch(ctx context.Context, writes []write) error {
	return ix.inTx(ctx, "index runbooks", func(tx *sql.Tx) error { return writeFiles(ctx, tx, writes) })
}

// writeFiles upserts each file's kb_files row and, unless it is a touch,
// replaces its sections and their full-text rows.
func writeFiles(ctx context.Context, tx *sql.Tx, writes []write) error {
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
	for _, w := range writes {
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
func (ix *Index) remove(ctx context.Context, keys []string) error {
	return ix.inTx(ctx, "drop removed runbooks", func(tx *sql.Tx) error {
		for _, k := range keys {
			if err := deleteSections(ctx, tx, k); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM kb_files WHERE path = ?`, k); err != nil {
				return fmt.Errorf("drop removed runbook %s: %w", k, err)
			}
		}
		return nil
	})
}

// inTx runs fn in one transaction of the index's tables, committed when fn
// succeeds and rolled back when it fails; what names the work in errors.
func (ix *Index) inTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, rollback(tx))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", what, err)
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
