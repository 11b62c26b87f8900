package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/superbiz/superbiz/internal/filekind"
)

// Bounds of what one knowledge index takes in, so one huge or generated
// runbook can neither stall a sync nor crowd every other document out.
const (
	// MaxFileBytes bounds one runbook file; a larger one is not indexed.
	MaxFileBytes = 1 << 20
	// MaxSectionsPerFile bounds the sections one file contributes; the rest
	// of a longer file is not indexed.
	MaxSectionsPerFile = 256
	// MaxFiles bounds the Markdown files indexed from all roots together.
	MaxFiles = 10000
	// MaxExclusionsListed bounds the exclusions a Sync or Inspect lists
	// (ExcludedTotal still counts them all).
	MaxExclusionsListed = 100
)

// Why a file under the knowledge paths was left out of the index, whole or
// in part; `kb index` and `doctor` print them, with a detail in parentheses.
const (
	ReasonOutside     = "symbolic link leading outside the knowledge paths"
	ReasonDangling    = "dangling symbolic link"
	ReasonBadLink     = "unresolvable symbolic link"
	ReasonSpecial     = "not a regular file (FIFO, device or socket)"
	ReasonHardLink    = "hard link: the file has other names, which may lie outside the knowledge paths; copy it instead"
	ReasonPseudoFS    = "pseudo file system"
	ReasonTooLarge    = "runbook larger than the size limit"
	ReasonSections    = "too many sections: only the first ones are indexed"
	ReasonTooMany     = "too many runbook files: the rest are not indexed"
	ReasonUnreadable  = "unreadable"
	ReasonEncoding    = "text encoding not readable"
	ReasonNotMarkdown = "not Markdown: only *.md and *.markdown files are indexed"
)

// ErrRootInvalid marks a configured knowledge path that is neither a
// directory nor a regular file (a FIFO, a device, a socket) or that lies on
// a pseudo file system such as /proc.
var ErrRootInvalid = errors.New("knowledge path is not a directory of runbooks")

// Exclusion is one file or directory under the knowledge paths that was
// not indexed (or only in part), and why.
type Exclusion struct {
	// Path is the path on disk (the link's own path for a symbolic link).
	Path string `json:"path"`
	// Reason is one of the Reason… texts, possibly followed by ": detail".
	Reason string `json:"reason"`
}

// String is the exclusion as `kb index` prints it.
func (e Exclusion) String() string { return e.Path + ": " + e.Reason }

// exclusions collects Exclusion values, listing at most MaxExclusionsListed.
type exclusions struct {
	list  []Exclusion
	total int
}

// sorted returns the listed exclusions ordered by path.
func (x *exclusions) sorted() []Exclusion {
	sort.Slice(x.list, func(i, j int) bool { return x.list[i].Path < x.list[j].Path })
	return x.list
}

func (x *exclusions) add(path, reason string) {
	x.total++
	if len(x.list) < MaxExclusionsListed {
		x.list = append(x.list, Exclusion{Path: strings.ToValidUTF8(path, "\uFFFD"), Reason: reason})
	}
}

// isMarkdown reports whether a file name is indexed.
func isMarkdown(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// documentExts are the extensions of documents a team may keep beside its
// runbooks and expect indexed: such a file is reported as not Markdown, while
// images, scripts and data files are passed over in silence.
var documentExts = map[string]bool{
	".txt": true, ".text": true, ".rst": true, ".adoc": true, ".asciidoc": true, ".org": true,
	".html": true, ".htm": true, ".mdx": true, ".mkd": true, ".mdown": true, ".markdn": true,
	".wiki": true, ".textile": true, ".pdf": true, ".doc": true, ".docx": true, ".odt": true, ".rtf": true,
}

// isDocument reports whether a non-Markdown file name is a document whose
// skipping is worth reporting.
func isDocument(name string) bool {
	return documentExts[strings.ToLower(filepath.Ext(name))]
}

// resolveRoot checks one configured path: it must exist and be a directory
// or a regular file, not on a pseudo file system. It returns the absolute
// path as configured, its fully resolved real path, and whether it is a file.
func resolveRoot(p string) (abs, resolved string, file bool, err error) {
	abs, err = filepath.Abs(p)
	if err != nil {
		return "", "", false, fmt.Errorf("knowledge path %q: %w", p, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", false, fmt.Errorf("%w: %s (check [knowledge] paths)", ErrRootMissing, abs)
	}
	if err != nil {
		return "", "", false, fmt.Errorf("knowledge path %s: %w", abs, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return "", "", false, fmt.Errorf("%w: %s is %s: name a directory of Markdown runbooks (check [knowledge] paths)", ErrRootInvalid, abs, filekind.Describe(st.Mode()))
	}
	if name, err := pseudoFS(abs); err != nil {
		return "", "", false, fmt.Errorf("knowledge path %s: %w", abs, err)
	} else if name != "" {
		return "", "", false, fmt.Errorf("%w: %s is on the %s pseudo file system: name a directory of Markdown runbooks (check [knowledge] paths)", ErrRootInvalid, abs, name)
	}
	resolved, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", false, fmt.Errorf("knowledge path %s: %w", abs, err)
	}
	return abs, resolved, !st.IsDir(), nil
}

// scanResult is what scan found under the roots.
type scanResult struct {
	files    []found
	excluded exclusions
}

// scanner walks the roots once; it never opens a file, and reads a
// directory only when it is not on a pseudo file system.
type scanner struct {
	ctx   context.Context
	roots []root
	res   scanResult
	seen  map[string]bool
}

// inside reports whether a resolved real path lies within a root: under a
// directory root, or the very file of a file root.
func (s *scanner) inside(resolved string) bool {
	for _, rt := range s.roots {
		if rt.file {
			if resolved == rt.resolved {
				return true
			}
			continue
		}
		rel, err := filepath.Rel(rt.resolved, resolved)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// add records one Markdown file to index: key from the path under the
// root, abs the resolved file to read.
func (s *scanner) add(rt root, abs, rel string, st fs.FileInfo) {
	if reason := hardLinked(st); reason != "" {
		s.res.excluded.add(abs, reason)
		return
	}
	if st.Size() > MaxFileBytes {
		s.res.excluded.add(abs, fmt.Sprintf("%s (%d bytes, limit %d)", ReasonTooLarge, st.Size(), MaxFileBytes))
		return
	}
	// Sources are shown to the model and stored as TEXT: keep them UTF-8.
	key := strings.ToValidUTF8(rt.id+"/"+filepath.ToSlash(rel), "\uFFFD")
	if s.seen[key] {
		return
	}
	if len(s.res.files) >= MaxFiles {
		s.res.excluded.add(abs, fmt.Sprintf("%s (limit %d)", ReasonTooMany, MaxFiles))
		return
	}
	s.seen[key] = true
	s.res.files = append(s.res.files, found{key: key, root: rt.abs, abs: abs, size: st.Size(), mtimeNs: st.ModTime().UnixNano()})
}

// link handles a symbolic link met in a walk: one that resolves inside the
// roots to a Markdown file is indexed under its own name; one to a
// directory is not descended (its target is walked where it lives, so no
// loop is possible); one leading out of the roots, dangling or looping is
// never followed and is reported.
func (s *scanner) link(rt root, p, rel string) {
	md := isMarkdown(filepath.Base(p))
	target, err := filepath.EvalSymlinks(p)
	if err == nil {
		var st fs.FileInfo
		if st, err = os.Stat(target); err == nil {
			s.linkTo(rt, p, rel, target, st, md)
			return
		}
	}
	// Only a Markdown name could have been a runbook: other broken links
	// (a dangling src.zip) are not worth a warning.
	switch {
	case !md:
	case errors.Is(err, fs.ErrNotExist):
		s.res.excluded.add(p, ReasonDangling)
	default:
		s.res.excluded.add(p, ReasonBadLink+": "+unwrapPath(err).Error())
	}
}

// linkTo handles a link that resolved to target.
func (s *scanner) linkTo(rt root, p, rel, target string, st fs.FileInfo, md bool) {
	if !s.inside(target) {
		if md || st.IsDir() {
			s.res.excluded.add(p, ReasonOutside+" ("+target+")")
		}
		return
	}
	if st.IsDir() || !md {
		return
	}
	if !st.Mode().IsRegular() {
		s.res.excluded.add(p, ReasonSpecial)
		return
	}
	s.add(rt, target, rel, st)
}

// statBatch is how many Markdown files a walk lists before it reads their
// sizes and times, statWorkers at once: the stat calls of a thousand
// runbooks are most of an unchanged sync's file system time.
const (
	statBatch   = 256
	statWorkers = 4
)

// candidate is a Markdown file met in a walk whose size and time are not
// read yet.
type candidate struct {
	p, rel string
	d      fs.DirEntry
	st     fs.FileInfo
	err    error
}

// flush reads the pending candidates' file info concurrently, then adds
// them in walk order, so the result is the same as one stat at a time.
func (s *scanner) flush(rt root, pending []candidate) []candidate {
	if len(pending) == 0 {
		return pending
	}
	var wg sync.WaitGroup
	per := (len(pending) + statWorkers - 1) / statWorkers
	for lo := 0; lo < len(pending); lo += per {
		part := pending[lo:min(lo+per, len(pending))]
		wg.Go(func() {
			for i := range part {
				part[i].st, part[i].err = part[i].d.Info()
			}
		})
	}
	wg.Wait()
	for _, c := range pending {
		if c.err != nil {
			s.res.excluded.add(c.p, ReasonUnreadable+": "+unwrapPath(c.err).Error())
			continue
		}
		s.add(rt, c.p, c.rel, c.st)
	}
	return pending[:0]
}

// walk lists one directory root. Everything that can add to the result
// other than a plain Markdown file first flushes the pending ones, so the
// order of additions (which decides MaxFiles and the listed exclusions)
// stays the walk's order.
func (s *scanner) walk(rt root) error {
	var pending []candidate
	err := filepath.WalkDir(rt.resolved, func(p string, d fs.DirEntry, err error) error {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			if p == rt.resolved {
				return fmt.Errorf("walk knowledge path %s: %w", rt.abs, err)
			}
			pending = s.flush(rt, pending)
			s.res.excluded.add(p, ReasonUnreadable+": "+unwrapPath(err).Error())
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if p != rt.resolved && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(rt.resolved, p)
		if err != nil {
			return fmt.Errorf("runbook path %s: %w", p, err)
		}
		typ := d.Type()
		switch {
		case typ&fs.ModeSymlink != 0:
			pending = s.flush(rt, pending)
			s.link(rt, p, rel)
			return nil
		case d.IsDir():
			if p == rt.resolved {
				return nil // checked by resolveRoot
			}
			fsName, err := pseudoFS(p)
			if err != nil {
				pending = s.flush(rt, pending)
				s.res.excluded.add(p, ReasonUnreadable+": "+unwrapPath(err).Error())
				return filepath.SkipDir
			}
			if fsName != "" {
				pending = s.flush(rt, pending)
				s.res.excluded.add(p, ReasonPseudoFS+" ("+fsName+")")
				return filepath.SkipDir
			}
			return nil
		case !isMarkdown(name):
			if isDocument(name) {
				pending = s.flush(rt, pending)
				s.res.excluded.add(p, ReasonNotMarkdown)
			}
			return nil
		case !typ.IsRegular():
			pending = s.flush(rt, pending)
			s.res.excluded.add(p, ReasonSpecial)
			return nil
		}
		pending = append(pending, candidate{p: p, rel: rel, d: d})
		if len(pending) >= statBatch {
			pending = s.flush(rt, pending)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.flush(rt, pending)
	return nil
}

// scan lists the Markdown files under the roots, skipping hidden
// directories and files, sorted by key, and what it left out and why.
func scan(ctx context.Context, roots []root) (scanResult, error) {
	s := &scanner{ctx: ctx, roots: roots, seen: map[string]bool{}}
	for _, rt := range roots {
		if rt.file {
			st, err := os.Stat(rt.resolved)
			if err != nil {
				return scanResult{}, fmt.Errorf("stat runbook %s: %w", rt.abs, err)
			}
			s.add(rt, rt.resolved, filepath.Base(rt.abs), st)
			continue
		}
		if err := s.walk(rt); err != nil {
			return scanResult{}, err
		}
	}
	sort.Slice(s.res.files, func(i, j int) bool { return s.res.files[i].key < s.res.files[j].key })
	return s.res, nil
}

// sectionsCut is the exclusion reason of a file holding n sections.
func sectionsCut(n int) string {
	return fmt.Sprintf("%s (%d sections, limit %d)", ReasonSections, n, MaxSectionsPerFile)
}

// errNotRegular refuses to read a file that is no longer a regular file.
var errNotRegular = errors.New(ReasonSpecial)

// hardLinked is the exclusion reason of a regular file with more than one
// name, "" for a file with one: another name may lie anywhere on the file
// system, so such a file could carry text from outside the paths in.
func hardLinked(st fs.FileInfo) string {
	if n := filekind.Links(st); n > 1 {
		return fmt.Sprintf("%s (%d names)", ReasonHardLink, n)
	}
	return ""
}

// readRunbook reads one runbook found by scan: never through a symbolic
// link (scan already resolved it), never waiting on a FIFO, and never more
// than MaxFileBytes.
func readRunbook(abs string) ([]byte, error) {
	f, err := os.OpenFile(abs, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errNotRegular
	}
	if reason := hardLinked(st); reason != "" {
		return nil, errors.New(reason) // linked after the scan
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s (limit %d bytes)", ReasonTooLarge, MaxFileBytes)
	}
	return data, nil
}

// unwrapPath drops the *fs.PathError wrapper whose path the exclusion
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Inventory is what Inspect finds under the knowledge paths without
// touching an index: for `doctor`.
type Inventory struct {
	// Files is the number of Markdown files that would be indexed.
	Files int
	// Excluded lists at most MaxExclusionsListed files left out, whole or in part.
	Excluded []Exclusion
	// ExcludedTotal counts them all.
	ExcludedTotal int
}

// Inspect applies Sync's rules to the knowledge paths without an index:
// the same refusals (ErrRootMissing, ErrRootInvalid) and the same
// exclusions, including files with more than MaxSectionsPerFile sections
// (which it reads and splits, each at most MaxFileBytes).
func Inspect(ctx context.Context, paths []string) (Inventory, error) {
	roots, err := resolveRoots(paths)
	if err != nil {
		return Inventory{}, err
	}
	res, err := scan(ctx, roots)
	if err != nil {
		return Inventory{}, err
	}
	inv := Inventory{Files: len(res.files)}
	for _, f := range res.files {
		if err := ctx.Err(); err != nil {
			return Inventory{}, fmt.Errorf("inspect runbooks: %w", err)
		}
		data, err := readRunbook(f.abs)
		if err != nil {
			res.excluded.add(f.abs, ReasonUnreadable+": "+unwrapPath(err).Error())
			inv.Files--
			continue
		}
		page, cut, refused := splitBounded(f.key, data)
		switch {
		case refused != "":
			res.excluded.add(f.abs, refused)
			inv.Files--
		case cut > 0:
			res.excluded.add(f.abs, sectionsCut(len(page.Sections)+cut))
		}
	}
	inv.Excluded, inv.ExcludedTotal = res.excluded.sorted(), res.excluded.total
	return inv, nil
}
