//go:build unix

package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
)

func writePlaybook(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name, FileName)
	if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: Check it.\n---\nSteps.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSpecialAndOutsidePlaybooks: a FIFO named SKILL.md is refused at once
// (never waited on), and a link leading outside every [skills] path is
// refused whether it is the playbook directory or its SKILL.md; links that
// stay inside the paths, and a link to a second configured path, still load.
func TestSpecialAndOutsidePlaybooks(t *testing.T) {
	root, other, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writePlaybook(t, root, "check-plain")
	if err := os.MkdirAll(filepath.Join(root, "check-fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "check-fifo", FileName), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := writePlaybook(t, outside, "check-outside-file")
	writePlaybook(t, outside, "check-outside-dir")
	if err := os.MkdirAll(filepath.Join(root, "check-outside-file"), 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(secret, filepath.Join(root, "check-outside-file", FileName)))
	must(os.Symlink(filepath.Join(outside, "check-outside-dir"), filepath.Join(root, "check-outside-dir")))
	// inside: a link to a sibling playbook's directory, and into the second path
	writePlaybook(t, filepath.Join(root, "nested"), "check-inside-link")
	must(os.Symlink(filepath.Join(root, "nested", "check-inside-link"), filepath.Join(root, "check-inside-link")))
	writePlaybook(t, other, "check-other")
	must(os.Symlink(filepath.Join(other, "check-other"), filepath.Join(root, "check-other-link")))

	done := make(chan struct{})
	var c *Catalog
	go func() {
		defer close(done)
		var err error
		c, err = Load([]string{root, other})
		if err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Load waits on the FIFO")
	}
	if c == nil {
		return
	}
	got := map[string]error{}
	for _, err := range c.Problems() {
		var p *Problem
		if errors.As(err, &p) {
			got[filepath.Base(filepath.Dir(p.Path))] = err
		}
	}
	if err := got["check-fifo"]; err == nil || !strings.Contains(err.Error(), "a named pipe (FIFO), not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
	for _, name := range []string{"check-outside-file", "check-outside-dir"} {
		if err := got[name]; !errors.Is(err, ErrOutside) {
			t.Errorf("%s: %v, want ErrOutside", name, err)
		}
		if _, ok := c.Get(name); ok {
			t.Errorf("%s served from outside the paths", name)
		}
	}
	reliability.Record(t, reliability.SectionBombs, "FIFO SKILL.md and links outside [skills] paths", map[string]any{
		"outcome": fmt.Sprintf("%d refused, none served or waited on", len(got))})
	for _, name := range []string{"check-plain", "check-other", "check-inside-link"} {
		if _, ok := c.Get(name); !ok {
			t.Errorf("%s not loaded; problems %v", name, c.Problems())
		}
	}
}

// TestHardLinkedPlaybook: a SKILL.md that is a hard link to a file outside
// the [skills] paths is refused with ErrHardLink and never served, while a
// playbook with one name beside it loads.
func TestHardLinkedPlaybook(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writePlaybook(t, root, "check-plain")
	secret := writePlaybook(t, outside, "check-hard")
	if err := os.MkdirAll(filepath.Join(root, "check-hard"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(root, "check-hard", FileName)); err != nil {
		t.Fatal(err)
	}
	c, err := Load([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get("check-hard"); ok {
		t.Error("a hard-linked playbook was served")
	}
	if _, ok := c.Get("check-plain"); !ok {
		t.Errorf("check-plain not loaded; problems %v", c.Problems())
	}
	problems := c.Problems()
	if len(problems) != 1 || !errors.Is(problems[0], ErrHardLink) || !strings.Contains(problems[0].Error(), "check-hard/SKILL.md: is a hard link") {
		t.Errorf("problems %v, want one ErrHardLink naming check-hard/SKILL.md", problems)
	}
}
