//go:build unix

package knowledge

import "syscall"

// openFlags make reading a runbook never follow a symbolic link swapped in
// after the scan and never wait on a FIFO.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
