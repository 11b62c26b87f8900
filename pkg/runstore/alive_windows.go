//go:build windows

package runstore

import (
	"errors"
	"syscall"
)

// Windows process access and status codes (winnt.h, winerror.h).
const (
	processQueryLimitedInformation = 0x1000
	stillActive                    = 259
	errorInvalidParameter          = syscall.Errno(87)
)

// processAlive reports whether pid names a running process: OpenProcess fails
// with ERROR_INVALID_PARAMETER for a pid that does not exist, and an exited
// process still held open reports an exit code other than STILL_ACTIVE. Any
// other doubt (access denied) counts as alive, so a live run is never failed.
func processAlive(pid int) bool {
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, errorInvalidParameter)
	}
	defer syscall.CloseHandle(h) //nolint:errcheck // query handle
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
