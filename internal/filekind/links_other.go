//go:build !unix

package filekind

import "io/fs"

// Links is 1 where the file system's link count is not exposed.
func Links(fs.FileInfo) uint64 { return 1 }
