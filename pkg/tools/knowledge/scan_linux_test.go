package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// A pseudo file system mounted inside a tree is not descended. Mounting
// needs CAP_SYS_ADMIN: without it the walk's check is tested on /proc's
// magic number only and the in-tree case skips, counted; any other failure
// to mount fails it under CI.
func TestPseudoFS(t *testing.T) {
	for dir, want := range map[string]string{"/proc": "proc", "/sys": "sysfs", t.TempDir(): ""} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		got, err := pseudoFS(dir)
		if err != nil || got != want {
			t.Errorf("pseudoFS(%s) = %q, %v; want %q", dir, got, err, want)
		}
	}
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "a.md", "# Alpha\nalpha\n")
	mnt := filepath.Join(dir, "kernel")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("proc", mnt, "proc", 0, ""); err != nil {
		testenv.MountFailed(t, fmt.Errorf("mount proc inside the tree: %w", err), "pseudoFS was checked on /proc and /sys above")
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	st, err := syncWithin(t, NewIndex(openDB(t), []string{dir}))
	if err != nil || reasons(st)[mnt] != ReasonPseudoFS+" (proc)" || st.Files != 1 {
		t.Errorf("sync over a proc mount: %+v %v", st, err)
	}
}
