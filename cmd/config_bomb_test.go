//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
)

// Hostile configuration files end the command with exit 2 and one line
// naming the file, before anything else runs (a FIFO never blocks).
func TestConfigBombsExit2(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.toml")
	n := 100 << 10
	fixture.WriteFile(t, deep, strings.Repeat("a={", n)+strings.Repeat("}", n))
	big := filepath.Join(dir, "big.toml")
	fixture.WriteFile(t, big, "# "+strings.Repeat("x", 2<<20))
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	paths := map[string]string{"deep": deep, "big": big, "fifo": fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["dev-zero"] = "/dev/zero"
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			type result struct {
				code   int
				errOut string
			}
			done := make(chan result, 1)
			go func() {
				code, _, errOut := cli(t, diagnoseEnv(t), "--config", p, "runs")
				done <- result{code, errOut}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second): // a hang guard, not a speed assertion
				t.Fatalf("superbiz --config %s runs: still running after 30 s", p)
			}
			if r.code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr %q", r.code, ExitUsage, r.errOut)
			}
			if !strings.Contains(r.errOut, p) || strings.Count(strings.TrimSpace(r.errOut), "\n") != 0 {
				t.Errorf("stderr must be one line naming %s: %q", p, r.errOut)
			}
		})
	}
}
