//go:build unix

package config

import "syscall"

// mkfifo makes a named pipe for the FIFO bomb.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
