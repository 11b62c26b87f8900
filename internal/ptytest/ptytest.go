// Package ptytest opens pseudo-terminals for tests of what a program writes
// to, and reads from, a terminal (no third-party pty package needed).
package ptytest

import (
	"os"
	"strconv"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
	"golang.org/x/sys/unix"
)

// Open opens a new pseudo-terminal pair through /dev/ptmx; both ends close
// when the test ends. Without /dev/ptmx the test is missing a prerequisite.
func Open(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		testenv.Missing(t, "no /dev/ptmx: "+err.Error(), "a Linux machine with devpts mounted")
	}
	t.Cleanup(func() { _ = master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { _ = slave.Close() })
	return master, slave
}
