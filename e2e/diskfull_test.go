package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"

	"github.com/superbiz/superbiz/internal/reliability"
)

// tinyDisk mounts a tmpfs of size (e.g. "200k") for the test. Without
// CAP_SYS_ADMIN it skips, counted (testenv.MountFailed); any other failure
// to mount fails the test under CI.
func tinyDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.MountFailed(t, fmt.Errorf("mount -t tmpfs: %w: %s", err, strings.TrimSpace(string(out))),
			"the in-process test internal/usecase TestStoreFullAtAnyPoint covers a full store")
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// tinyStore is an env whose run store lies on a tmpfs of size.
func tinyStore(t *testing.T, size string) (e *env, db string) {
	t.Helper()
	disk := tinyDisk(t, size)
	e = newEnv(t, testenv.ClosedURL(t))
	db = filepath.Join(disk, "superbiz.db")
	e.vars["SUPERBIZ_DB"] = db
	return e, db
}

// A run store on a disk that fills up during the very first run: exit 1,
// the message says the store is full and names it, and no answer is
// printed, wherever the run was when the space ran out.
func TestDiskFullFirstRun(t *testing.T) {
	t.Parallel()
	for _, size := range []string{"64k", "200k", "300k", "400k", "600k"} {
		t.Run(size, func(t *testing.T) {
			t.Parallel()
			e, db := tinyStore(t, size)
			r := e.run(t, "--demo", "diagnose")
			if r.code == 0 {
				if fi, err := os.Stat(db); err == nil {
					t.Logf("the run fit in %s (%d bytes)", size, fi.Size())
				}
				reliability.Record(t, reliability.SectionMutation, "disk full on the first run: "+size+" tmpfs", map[string]any{"test": t.Name(), "outcome": "fits", "exit": r.code})
				return
			}
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r)
			}
			if !strings.Contains(r.stderr, "superbiz: the run store "+db+" is full (no space left on its disk)") || !strings.Contains(r.stderr, "hint: free space") {
				t.Errorf("stderr does not say the store is full:\n%s", r.stderr)
			}
			if strings.Contains(strings.ToLower(r.stderr), "internal error") {
				t.Errorf("stderr calls it an internal error:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("an answer was printed although the run could not be stored:\n%s", r.stdout)
			}
			reliability.Record(t, reliability.SectionMutation, "disk full on the first run: "+size+" tmpfs", map[string]any{"test": t.Name(), "outcome": "store full reported", "exit": r.code})
		})
	}
}
