//go:build unix && !linux

package logs

// adviseMore has nothing more to add outside Linux.
func adviseMore(data []byte, page int) {}
