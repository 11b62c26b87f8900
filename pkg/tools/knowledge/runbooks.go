package knowledge

import (
	"context"
	"fmt"
	"strings"
)

// Runbook is one indexed runbook file as the index holds it: its source
// path (as lookup_knowledge cites it) and its sections' text in order.
type Runbook struct {
	Path  string
	Title string
	Text  string
}

// Runbooks lists the source paths of the indexed runbook files, sorted,
// so a client can browse what lookup_knowledge searches. It does not Sync.
func (ix *Index) Runbooks(ctx context.Context) ([]Runbook, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT f.path, coalesce((SELECT s.title FROM kb_sections s WHERE s.file_path = f.path ORDER BY s.ord LIMIT 1), '') FROM kb_files f ORDER BY f.path`)
	if err != nil {
		return nil, fmt.Errorf("list the indexed runbooks: %w", err)
	}
	defer rows.Close()
	var out []Runbook
	for rows.Next() {
		var r Runbook
		if err := rows.Scan(&r.Path, &r.Title); err != nil {
			return nil, fmt.Errorf("list the indexed runbooks: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the indexed runbooks: %w", err)
	}
	return out, nil
}

// ReadRunbook returns one indexed runbook's sections joined in file order
// (the text lookup_knowledge searched), and false when path is not indexed.
// It does not Sync.
func (ix *Index) ReadRunbook(ctx context.Context, path string) (Runbook, bool, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT title, body FROM kb_sections WHERE file_path = ? ORDER BY ord`, path)
	if err != nil {
		return Runbook{}, false, fmt.Errorf("read runbook %s: %w", path, err)
	}
	defer rows.Close()
	r := Runbook{Path: path}
	var parts []string
	for rows.Next() {
		var title, body string
		if err := rows.Scan(&title, &body); err != nil {
			return Runbook{}, false, fmt.Errorf("read runbook %s: %w", path, err)
		}
		if r.Title == "" {
			r.Title = title
		}
		parts = append(parts, strings.TrimRight(body, "\n"))
	}
	if err := rows.Err(); err != nil {
		return Runbook{}, false, fmt.Errorf("read runbook %s: %w", path, err)
	}
	if len(parts) == 0 {
		return Runbook{}, false, nil
	}
	r.Text = strings.Join(parts, "\n\n") + "\n"
	return r, true, nil
}

// SoleRoot is the id of the one configured root, the first segment of every
// runbook's source ("runbooks" for a root runbooks/, so a source is
// "runbooks/redis.md"), for a client that names a runbook by its path
// inside the root; "" when several roots are configured (the id then tells
// them apart) or the root cannot be resolved.
func (ix *Index) SoleRoot() string {
	if len(ix.roots) != 1 {
		return ""
	}
	rts, err := resolveRoots(ix.roots)
	if err != nil {
		return ""
	}
	return rts[0].id
}
