// Package filekind names a file's type for the messages that refuse special
// files (FIFOs, devices, sockets) where a regular file is read: the config
// file, runbooks and playbooks say it in the same words; Links counts a
// file's names, so runbooks and playbooks can refuse hard links.
package filekind

import "io/fs"

// Describe names the type of a file that is not a regular file, e.g.
// "a named pipe (FIFO)", for a message that refuses it.
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
