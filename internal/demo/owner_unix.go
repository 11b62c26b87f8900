//go:build unix

package demo

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether the file is owned by the effective user, the
// only one a per-user workspace may trust.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
