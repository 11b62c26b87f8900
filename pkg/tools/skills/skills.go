// Package skills is the diagnosis playbook catalog: the built-in playbooks
// embedded in prompts.Skills plus the user's own from configured directories,
// each a <name>/SKILL.md with `name` and `description` front matter. A broken
// user playbook is reported and skipped, never fatal, so one bad file cannot
// stop a diagnosis.
package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/superbiz/superbiz/internal/filekind"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/prompts"
)

// FileName is the playbook file inside each playbook directory.
const FileName = "SKILL.md"

// SourceBuiltin is the Source of a playbook embedded in the binary.
const SourceBuiltin = "builtin"

// Problem is one playbook (or directory) that was skipped, with the path a
// user has to fix.
type Problem struct {
	Path string
	Err  error
}

// Error says which file is wrong and why.
func (p *Problem) Error() string { return fmt.Sprintf("playbook %s: %v", p.Path, p.Err) }

// Unwrap exposes the cause for errors.Is.
func (p *Problem) Unwrap() error { return p.Err }

// ErrBuiltinOverride marks a user playbook that reuses a built-in's name: it is
// refused so a stray directory cannot silently change the shipped guidance.
var ErrBuiltinOverride = errors.New("has the name of a built-in playbook; built-ins cannot be overridden, rename it")

// ErrDuplicate marks a user playbook whose name an earlier directory already provided.
var ErrDuplicate = errors.New("duplicate playbook name; the first one found is used")

// Catalog is the loaded, immutable set of playbooks; it implements tools.Playbooks.
type Catalog struct {
	byName   map[string]tools.Playbook
	sorted   []tools.Playbook
	problems []error
}

var _ tools.Playbooks = (*Catalog)(nil)

// Load builds the catalog from the built-ins and the user directories, in
// order. Missing or unreadable directories and malformed playbooks become
// Problems; the error is reserved for a broken build (an invalid built-in).
func Load(dirs []string) (*Catalog, error) {
	c := &Catalog{byName: map[string]tools.Playbook{}}
	if err := c.loadBuiltins(); err != nil {
		return nil, err
	}
	builtins := len(c.byName)
	if builtins == 0 {
		return nil, errors.New("load built-in playbooks: none embedded")
	}
	roots := realRoots(dirs)
	for _, dir := range dirs {
		c.loadDir(dir, roots)
	}
	c.sorted = make([]tools.Playbook, 0, len(c.byName))
	for _, p := range c.byName {
		c.sorted = append(c.sorted, p)
	}
	sort.Slice(c.sorted, func(i, j int) bool { return c.sorted[i].Name < c.sorted[j].Name })
	return c, nil
}

func (c *Catalog) loadBuiltins() error {
	entries, err := fs.ReadDir(prompts.Skills, "skills")
	if err != nil {
		return fmt.Errorf("load built-in playbooks: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := path.Join("skills", e.Name(), FileName)
		data, err := fs.ReadFile(prompts.Skills, p)
		if err != nil {
			return fmt.Errorf("load built-in playbook %s: %w", p, err)
		}
		pb, err := parseFile(data, e.Name())
		if err != nil {
			return fmt.Errorf("load built-in playbook %s: %w", p, err)
		}
		pb.Source = SourceBuiltin
		c.byName[pb.Name] = pb
	}
	return nil
}

func (c *Catalog) loadDir(dir string, roots []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = errors.New("directory does not exist; create it or remove it from [skills] paths")
		}
		c.problems = append(c.problems, &Problem{Path: dir, Err: err})
		return
	}
	for _, e := range entries {
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			continue // README files and the like sit next to playbook directories
		}
		file := filepath.Join(dir, e.Name(), FileName)
		pb, err := readPlaybook(file, e.Name(), roots)
		if err != nil {
			if errors.Is(err, errNotPlaybookDir) {
				continue
			}
			c.problems = append(c.problems, &Problem{Path: file, Err: err})
			continue
		}
		if prev, ok := c.byName[pb.Name]; ok {
			cause := ErrDuplicate
			if prev.Source == SourceBuiltin {
				cause = ErrBuiltinOverride
			}
			c.problems = append(c.problems, &Problem{Path: file, Err: cause})
			continue
		}
		pb.Source = file
		c.byName[pb.Name] = pb
	}
}

// errNotPlaybookDir marks a symlink to a file next to the playbook
// directories: not a playbook, silently ignored.
var errNotPlaybookDir = errors.New("not a directory")

// ErrOutside marks a playbook reached through a symbolic link that leads
// outside every [skills] path: it is refused, so a link cannot serve any file
// on the machine to the model.
var ErrOutside = errors.New("is a symbolic link leading outside the [skills] paths; copy the playbook into one of them")

// ErrHardLink marks a SKILL.md with more than one name (a hard link): another
// name may lie anywhere on the file system, outside every [skills] path, so
// it is refused like a link leading out.
var ErrHardLink = errors.New("is a hard link (the file has other names, which may lie outside the [skills] paths); copy the playbook instead")

// realRoots resolves the [skills] paths' symbolic links, so a playbook's real
// path can be checked against them; a path that does not resolve is left out
// (loadDir reports it).
func realRoots(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// within reports whether path lies inside one of roots.
func within(path string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// readPlaybook reads one SKILL.md. It must be a regular file with one name (a
// FIFO is opened non-blocking and refused, never waited on; a device, socket
// or hard link is refused) whose real path, links resolved, lies inside a [skills] path.
func readPlaybook(file, dirName string, roots []string) (tools.Playbook, error) {
	real, err := filepath.EvalSymlinks(file)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return tools.Playbook{}, errNotPlaybookDir
	case errors.Is(err, fs.ErrNotExist):
		return tools.Playbook{}, fmt.Errorf("missing %s; every playbook directory needs one", FileName)
	case err != nil:
		return tools.Playbook{}, fmt.Errorf("open: %w", err)
	}
	if !within(real, roots) {
		return tools.Playbook{}, ErrOutside
	}
	st, err := os.Stat(real)
	if err != nil {
		return tools.Playbook{}, fmt.Errorf("open: %w", err)
	}
	if err := regular(st); err != nil {
		return tools.Playbook{}, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return tools.Playbook{}, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	// the name may have been swapped for a special file after the Stat
	if st, err = f.Stat(); err != nil {
		return tools.Playbook{}, fmt.Errorf("open: %w", err)
	}
	if err := regular(st); err != nil {
		return tools.Playbook{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return tools.Playbook{}, fmt.Errorf("read: %w", err)
	}
	return parseFile(data, dirName)
}

// regular refuses a SKILL.md that is not a regular file, saying what it is,
// or that has more than one name.
func regular(st fs.FileInfo) error {
	m := st.Mode()
	if !m.IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file; make it a Markdown file", FileName, filekind.Describe(m))
	}
	if n := filekind.Links(st); n > 1 {
		return fmt.Errorf("%w (%d names)", ErrHardLink, n)
	}
	return nil
}

func parseFile(data []byte, dirName string) (tools.Playbook, error) {
	pb, err := Parse(data)
	if err != nil {
		return tools.Playbook{}, err
	}
	if pb.Name != dirName {
		return tools.Playbook{}, fmt.Errorf("name %q differs from its directory %q; make them equal", pb.Name, dirName)
	}
	return pb, nil
}

// List returns every playbook sorted by name (the prompt's compact catalog).
func (c *Catalog) List() []tools.Playbook {
	return append([]tools.Playbook(nil), c.sorted...)
}

// Get returns one playbook by exact name, for read_skill and `skills show`.
func (c *Catalog) Get(name string) (tools.Playbook, bool) {
	p, ok := c.byName[name]
	return p, ok
}

// Names lists the valid names, sorted, for read_skill's unknown-name error.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.sorted))
	for i, p := range c.sorted {
		names[i] = p.Name
	}
	return names
}

// Problems lists the skipped playbooks and directories (each a *Problem), for
// `skills list` and `doctor`.
func (c *Catalog) Problems() []error {
	return append([]error(nil), c.problems...)
}
