//go:build !unix

package demo

import "io/fs"

// ownedByMe cannot read an owner here; the per-user cache directory's ACLs
// and the content check still apply.
func ownedByMe(fs.FileInfo) bool { return true }
