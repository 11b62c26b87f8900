// Package localserver starts a server binary (redis-server, victoria-logs)
// as a child process on a free loopback port and stops it: what the canary
// hooks of server-backed sources use to plant their fixtures in a real
// server of their kind.
package localserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"
)

// poll is how often readiness is asked.
const poll = 50 * time.Millisecond

// ErrMissing marks a server binary that is not installed.
var ErrMissing = errors.New("server binary not installed")

// FreeAddr is a loopback address (host:port) no one listened on a moment ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", fmt.Errorf("free the loopback port: %w", err)
	}
	return addr, nil
}

// Process is a running server.
type Process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	exit error         // how it exited, once done is closed
	stop sync.Once
	err  error
}

// Lookup is the path of the binary name: from PATH, else the first of
// also that exists; an ErrMissing error names install when it is nowhere.
func Lookup(name, install string, also ...string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, p := range also {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s (%s)", ErrMissing, name, install)
}

// Start runs bin with args, its output in logFile, and waits until ready
// returns nil (asked every 50 ms) for at most within; a server that exits
// or is not ready by then is stopped and the error says so.
func Start(bin string, args []string, logFile string, within time.Duration, ready func(context.Context) error) (*Process, error) {
	out, err := os.Create(logFile)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &Process{name: bin, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = out, out
	if err := p.cmd.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("start %s: %w", bin, err), out.Close())
	}
	go func() {
		p.exit = errors.Join(p.cmd.Wait(), out.Close())
		close(p.done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last error
	for {
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited before it was ready (%v); its output is in %s", bin, p.exit, logFile)
		case <-ctx.Done():
			return nil, errors.Join(fmt.Errorf("%s was not ready within %s: %v; its output is in %s", bin, within, last, logFile), p.Stop())
		case <-time.After(poll):
		}
		rctx, rcancel := context.WithTimeout(ctx, time.Second)
		last = ready(rctx)
		rcancel()
		if last == nil {
			return p, nil
		}
	}
}

// Stop kills the server and waits for it (once); its exit status after
// the kill says nothing, a failure to kill is the error.
func (p *Process) Stop() error {
	p.stop.Do(func() {
		if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			p.err = fmt.Errorf("stop %s: %w", p.name, err)
			return
		}
		<-p.done // the exit status after the kill says nothing
	})
	return p.err
}
