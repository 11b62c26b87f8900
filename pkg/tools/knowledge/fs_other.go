//go:build !linux

package knowledge

// pseudoFS reports no pseudo file systems where statfs magic numbers are not
// Linux's; special files inside a tree are still skipped by type.
func pseudoFS(string) (string, error) { return "", nil }
