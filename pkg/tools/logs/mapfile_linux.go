//go:build linux

package logs

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseMore pre-faults the range with MADV_POPULATE_READ (Linux 5.14+).
func adviseMore(data []byte, page int) {
	p := uintptr(unsafe.Pointer(&data[0]))
	start := p &^ uintptr(page-1)
	length := uintptr(len(data)) + (p - start)
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, start, length, unix.MADV_POPULATE_READ)
}
