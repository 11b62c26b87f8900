package runstore

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// On a read-only mount (tmpfs remounted ro: permissions do not bite root,
// a read-only file system does), a WAL store that Open cannot even switch
// is still listed by OpenReadOnly. Mounting needs CAP_SYS_ADMIN: without it
// the test skips, counted; any other failure to mount fails it under CI.
func TestOpenReadOnlyOnReadOnlyMount(t *testing.T) {
	ctx := context.Background()
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
		testenv.MountFailed(t, fmt.Errorf("mount tmpfs: %w", err), "TestOpenReadOnlyNeverWrites covers a store OpenReadOnly may not write to")
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	path := filepath.Join(mnt, "runs.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "archived"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		testenv.MountFailed(t, fmt.Errorf("remount the tmpfs read-only: %w", err), "TestOpenReadOnlyNeverWrites covers a store OpenReadOnly may not write to")
	}
	if s, err := Open(ctx, path); err == nil {
		s.Close()
		t.Log("Open succeeded on a read-only mount")
	} else {
		t.Logf("Open on a read-only mount: %v", err)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("OpenReadOnly on a read-only mount: %v", err)
	}
	defer ro.Close()
	runs, err := ro.ListRuns(ctx, ListFilter{Limit: 10})
	if err != nil || len(runs) != 1 || runs[0].ID != "r_1" {
		t.Fatalf("ListRuns: %+v, %v", runs, err)
	}
	if d, err := ro.GetRun(ctx, "r_1"); err != nil || d.Query != "archived" {
		t.Fatalf("GetRun: %+v, %v", d, err)
	}
}
