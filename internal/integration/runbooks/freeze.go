package runbooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// The runbook bounds of a pack.
const (
	// PackDir is the pack folder the runbooks are written under, one
	// sub-folder per knowledge path, named as the index names its root.
	PackDir = "runbooks"
	// MaxWholeRunbooks is the size under which the whole runbook set is
	// frozen; a larger set is frozen as the documents each of the run's
	// knowledge queries ranks in its top TopRunbooks.
	MaxWholeRunbooks = 20 << 20
	// TopRunbooks is how many documents of each knowledge query a large
	// runbook set contributes.
	TopRunbooks = 20
)

// knowledgeFile is the pack's [knowledge] table.
type knowledgeFile struct {
	Paths []string `toml:"paths"`
}

// runbookRoot is one knowledge path with the id the index gives it (the
// base name of its folder, "-2"… for a repeated one), so a document keeps
// its source, root id and path, in the pack.
type runbookRoot struct {
	dir string // the folder walked (a file root's folder)
	id  string
	// only is the one file of a file root, "" for a folder.
	only string
}

func runbookRoots(paths []string) []runbookRoot {
	used := map[string]int{}
	var out []runbookRoot
	for _, p := range paths {
		rt := runbookRoot{dir: p}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			rt.dir, rt.only = filepath.Dir(p), filepath.Base(p)
		}
		base := filepath.Base(rt.dir)
		used[base]++
		rt.id = base
		if n := used[base]; n > 1 {
			rt.id = base + "-" + strconv.Itoa(n)
		}
		out = append(out, rt)
	}
	return out
}

// runbook is one Markdown file of a root: its path on disk and under the root.
type runbook struct {
	root *runbookRoot
	abs  string
	rel  string
	size int64
}

// markdown is whether name is a file the index reads.
func markdown(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// listRunbooks is every Markdown file under the roots, as the index would
// find it (regular files; links are followed by os.Stat).
func listRunbooks(roots []runbookRoot) ([]runbook, error) {
	var out []runbook
	for i := range roots {
		rt := &roots[i]
		if rt.only != "" {
			st, err := os.Stat(filepath.Join(rt.dir, rt.only))
			if err != nil {
				return nil, err
			}
			out = append(out, runbook{root: rt, abs: filepath.Join(rt.dir, rt.only), rel: rt.only, size: st.Size()})
			continue
		}
		err := filepath.WalkDir(rt.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !markdown(d.Name()) {
				return nil
			}
			st, err := os.Stat(path)
			if err != nil || !st.Mode().IsRegular() || st.Size() > knowledge.MaxFileBytes {
				return nil //nolint:nilerr // the index skips such a file too, and says so in kb index
			}
			rel, err := filepath.Rel(rt.dir, path)
			if err != nil {
				return err
			}
			out = append(out, runbook{root: rt, abs: path, rel: filepath.ToSlash(rel), size: st.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("eval pack: runbooks %s: %w", rt.dir, err)
		}
	}
	return out, nil
}

// PackTable is [knowledge]: Freeze writes the pack's own (integration.Packed).
func (Source) PackTable() string { return table }

// PackPaths are the configuration's knowledge.paths, which a pack's must
// keep inside it.
func (Source) PackPaths(cfg *config.Config) []integration.PackPath {
	return integration.PathList(table+".paths", Paths(cfg))
}

// Freezes is lookup_knowledge.
func (Source) Freezes() []string { return []string{knowledge.Name} }

// Freeze freezes the runbooks: the whole set under MaxWholeRunbooks, else
// the top TopRunbooks documents of each knowledge query the run made. Each
// is decoded to UTF-8 and redacted. The pack always has a [knowledge]
// table, empty when the configuration names no runbook that exists.
func (s Source) Freeze(ctx context.Context, p *frozen.Pack) error {
	var existing []string
	for _, path := range Paths(p.Config) {
		if _, err := os.Stat(path); err == nil {
			existing = append(existing, path)
		}
	}
	kf := knowledgeFile{Paths: []string{}}
	p.Table("knowledge", &kf)
	if len(existing) == 0 {
		return nil
	}
	roots := runbookRoots(existing)
	all, err := listRunbooks(roots)
	if err != nil {
		return err
	}
	var total int64
	for _, rb := range all {
		total += rb.size
	}
	chosen, how := all, "the whole set"
	limit := int64(MaxWholeRunbooks)
	if s.maxWhole > 0 {
		limit = s.maxWhole
	}
	if total >= limit {
		if chosen, err = topRunbooks(ctx, p, all); err != nil {
			return err
		}
		how = fmt.Sprintf("the top %d of each of the run's knowledge queries (the set is %d bytes, over %d)", TopRunbooks, total, limit)
	}
	unread := 0
	for _, rb := range chosen {
		data, err := os.ReadFile(rb.abs)
		if err != nil {
			return fmt.Errorf("eval pack: runbook %s: %w", rb.abs, err)
		}
		text, _, err := knowledge.Decode(data)
		if err != nil {
			unread++ // the index cannot read it either (ReasonEncoding)
			continue
		}
		dst := filepath.Join(rootInPack(p, roots, *rb.root), filepath.FromSlash(rb.rel))
		if err := p.WriteText(dst, egress.Mask(text)); err != nil {
			return err
		}
	}
	for _, rt := range roots {
		dir := rootInPack(p, roots, rt)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("eval pack: %w", err)
		}
		kf.Paths = append(kf.Paths, p.Rel(dir))
	}
	if unread > 0 {
		how += fmt.Sprintf("; not frozen: %d in an encoding the index cannot read either", unread)
	}
	p.Frozen("runbooks: %d of %d document(s), %s", len(chosen)-unread, len(all), how)
	return nil
}

// rootInPack is the pack folder of a root's runbooks: PackDir itself for
// the one root of a set the index names PackDir (the usual ./runbooks), so
// a pack holds runbooks/en/…, not runbooks/runbooks/en/…; else a folder
// under PackDir named as the index names the root. Either way the folder's
// base name is the root's id, so the documents keep their ids. Packs
// written before keep working: their [knowledge] paths say where.
func rootInPack(p *frozen.Pack, roots []runbookRoot, rt runbookRoot) string {
	if len(roots) == 1 && rt.id == PackDir {
		return p.Path(PackDir)
	}
	return p.Path(PackDir, rt.id)
}

// topRunbooks are the files among all that the run's knowledge queries
// rank in their top TopRunbooks, searched in the workspace's index.
func topRunbooks(ctx context.Context, p *frozen.Pack, all []runbook) ([]runbook, error) {
	if p.Store == nil {
		return nil, errors.New("eval pack: the runbook set is too large to freeze whole, and no run store was given to search its index for each query's top documents")
	}
	tables, err := p.Store.Tables(knowledge.SchemaName)
	if err != nil {
		return nil, fmt.Errorf("eval pack: the runbook index: %w", err)
	}
	ix := knowledge.NewIndex(tables, Paths(p.Config))
	var out []runbook
	for _, inv := range p.Calls(knowledge.Name) {
		var in knowledge.Input
		if json.Unmarshal(inv.Input, &in) != nil || in.Query == "" {
			continue
		}
		docs, err := ix.Search(ctx, in.Query, TopRunbooks)
		if err != nil {
			return nil, fmt.Errorf("eval pack: search the runbooks for %q: %w", in.Query, err)
		}
		for _, d := range docs {
			i := slices.IndexFunc(all, func(rb runbook) bool { return rb.root.id+"/"+rb.rel == d.Source })
			if i >= 0 && !slices.ContainsFunc(out, func(rb runbook) bool { return rb.abs == all[i].abs }) {
				out = append(out, all[i])
			}
		}
	}
	return out, nil
}
