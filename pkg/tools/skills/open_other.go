//go:build !unix

package skills

// openFlags: no O_NONBLOCK here; the type checks before and after the open
// still apply.
const openFlags = 0
