//go:build unix

package skills

import "syscall"

// openFlags make opening a SKILL.md never wait on a FIFO swapped in after
// the checks; the type check on the open file then refuses it.
const openFlags = syscall.O_NONBLOCK
