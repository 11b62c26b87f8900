//go:build unix

package filekind

import (
	"io/fs"
	"syscall"
)

// Links is the number of names (hard links) a file has, so a reader can
// refuse a file that may also be reached under a name outside its folder;
// 1 when the file system does not say.
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // Nlink is uint32 on some unix ports
	}
	return 1
}
