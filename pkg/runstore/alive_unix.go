//go:build unix

package runstore

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid names a running process: signal 0 checks
// existence without sending anything; EPERM means it exists but belongs to
// another user. Any other doubt counts as alive, so a live run is never failed.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
