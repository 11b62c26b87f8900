package knowledge

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/superbiz/superbiz/pkg/model"
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

// root is one configured path with the id that prefixes its sources.
type root struct {
	abs      string // as configured, made absolute
	resolved string // with every symbolic link resolved: what is walked
	id       string
	file     bool // the root is a single Markdown file
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
