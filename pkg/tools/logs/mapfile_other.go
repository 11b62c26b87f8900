//go:build !unix

package logs

import "os"

// mapFile is unavailable here: the scanner streams the file instead.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	return nil, nil, errNoMap
}

// adviseRead is a no-op where files are streamed.
func adviseRead(data []byte) {}
