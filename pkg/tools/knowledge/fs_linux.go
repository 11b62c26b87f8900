package knowledge

import (
	"errors"
	"fmt"
	"syscall"
)

// pseudoName names the Linux pseudo file system with statfs magic number m,
// "" for any other: kernel state presented as files, never runbooks, and
// some of it endless (/proc/kcore) or blocking to read.
func pseudoName(m int64) string {
	switch m {
	case 0x9fa0:
		return "proc"
	case 0x62656572:
		return "sysfs"
	case 0x1cd1:
		return "devpts"
	case 0x27e0eb:
		return "cgroup"
	case 0x63677270:
		return "cgroup2"
	case 0x64626720:
		return "debugfs"
	case 0x74726163:
		return "tracefs"
	case 0x73636673:
		return "securityfs"
	case 0xcafe4a11:
		return "bpf"
	case 0x6165676c:
		return "pstore"
	case 0x62656570:
		return "configfs"
	case 0x65735543:
		return "fusectl"
	case 0x19800202:
		return "mqueue"
	case 0x42494e4d:
		return "binfmt_misc"
	case 0xde5e81e4:
		return "efivarfs"
	case 0xf97cff8c:
		return "selinuxfs"
	case 0x6e736673:
		return "nsfs"
	}
	return ""
}

// pseudoFS names the pseudo file system dir lies on, "" for a real one.
func pseudoFS(dir string) (string, error) {
	var st syscall.Statfs_t
	for {
		err := syscall.Statfs(dir, &st)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("statfs: %w", err)
		}
		break
	}
	return pseudoName(int64(st.Type)), nil
}
