package logs

import "os"

// isRegular reports whether path is a regular file (globs may match dirs).
func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
