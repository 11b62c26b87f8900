//go:build !unix

package config

import "errors"

// mkfifo is unavailable here: the FIFO bomb is skipped.
func mkfifo(string) error { return errors.New("no named pipes on this system") }
