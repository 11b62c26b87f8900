//go:build !unix

package knowledge

// openFlags: no O_NOFOLLOW here; the scan's type checks still apply.
const openFlags = 0
