//go:build unix

package logs

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the whole file read-only so the scanner can search it in
// place and binary-search it by offset; release unmaps it.
func mapFile(f *os.File, size int64) (data []byte, release func() error, err error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, errNoMap
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	return data, func() error { return unix.Munmap(data) }, nil
}

// adviseRead tells the kernel the range will be read start to end, and asks
// it to map the pages up front where supported (one call instead of a page
// fault per 4 KiB). Advice is only a hint: failures are ignored on purpose.
func adviseRead(data []byte) {
	if len(data) == 0 {
		return
	}
	// Align to the page containing data[0].
	page := os.Getpagesize()
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	adviseMore(data, page)
}
