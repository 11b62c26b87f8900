package filekind

import (
	"io/fs"
	"testing"
)

func TestDescribe(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir:                        "a directory",
		fs.ModeNamedPipe:                  "a named pipe (FIFO)",
		fs.ModeDevice | fs.ModeCharDevice: "a device",
		fs.ModeDevice:                     "a device",
		fs.ModeSocket:                     "a socket",
		fs.ModeIrregular:                  "not a regular file",
	} {
		if got := Describe(m); got != want {
			t.Errorf("Describe(%v) = %q, want %q", m, got, want)
		}
	}
}
