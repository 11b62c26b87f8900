// Package redistest starts real redis-server processes for tests (Debian's
// redis-server, installed by .ci/redis.sh): one server or a cluster of
// masters, each on a free loopback port with its own directory, no
// persistence, stopped with the test.
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// Bounds of starting a server.
const (
	readyTimeout = 20 * time.Second
	stopTimeout  = 10 * time.Second
	portAttempts = 3
)

// Server is one running redis-server: its address (host:port).
type Server struct {
	Addr string
}

// URL is the redis:// URL of the server for user ("" for none).
func (s *Server) URL(user string) string {
	if user == "" {
		return "redis://" + s.Addr
	}
	return "redis://" + user + "@" + s.Addr
}

// Binary returns the path of the named Redis binary (redis-server,
// redis-cli), skipping the test when it is missing (failing it in CI, where
// .ci/redis.sh installs it).
func Binary(t testing.TB, name string) string {
	t.Helper()
	testenv.SkipShort(t, "starts a real "+name)
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	testenv.Missing(t, name+" is not installed (Debian: apt-get install --no-install-recommends redis-server)", ".ci/run must source .ci/redis.sh")
	return ""
}

// Start starts redis-server with the lines of conf added to a minimal
// configuration (loopback, free port, no persistence) and waits until it
// answers PING. ACL user lines go in conf ("user diag on >pw ... ").
func Start(t testing.TB, conf ...string) *Server {
	t.Helper()
	bin := Binary(t, "redis-server")
	dir := t.TempDir()
	var lastErr error
	for range portAttempts {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redis-server: find a free port: %v", err)
		}
		lines := append([]string{
			"bind 127.0.0.1", "port " + strconv.Itoa(port), "dir " + dir, `save ""`, "appendonly no",
			"daemonize no", "logfile " + filepath.Join(dir, "redis.log"),
		}, conf...)
		path := filepath.Join(dir, "redis.conf")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatalf("write redis.conf: %v", err)
		}
		cmd := exec.Command(bin, path)
		if err := cmd.Start(); err != nil {
			t.Fatalf("redis-server: start: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if err = waitReady(addr, exited); err == nil {
			t.Cleanup(func() { stop(t, cmd, exited) })
			return &Server{Addr: addr}
		}
		stop(t, cmd, exited)
		log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
		lastErr = fmt.Errorf("%w\nlog:\n%s", err, log)
	}
	t.Fatalf("redis-server did not become ready after %d attempts: %v", portAttempts, lastErr)
	return nil
}

// Cluster starts n masters with cluster-enabled (no replicas) and joins
// them with redis-cli --cluster create, waiting until CLUSTER INFO says
// cluster_state:ok on every node. conf is added to each node's file.
func Cluster(t testing.TB, n int, conf ...string) []*Server {
	t.Helper()
	cli := Binary(t, "redis-cli")
	var nodes []*Server
	args := []string{"--cluster", "create"}
	for i := range n {
		bus, err := freePort() // the default bus port, port+10000, may be past 65535
		if err != nil {
			t.Fatalf("redis-server: find a free cluster bus port: %v", err)
		}
		s := Start(t, append([]string{"cluster-enabled yes", "cluster-config-file nodes-" + strconv.Itoa(i) + ".conf",
			"cluster-node-timeout 2000", "cluster-port " + strconv.Itoa(bus)}, conf...)...)
		nodes = append(nodes, s)
		args = append(args, s.Addr)
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(readyTimeout)
	for _, s := range nodes {
		for {
			info, err := Command(s.Addr, "CLUSTER", "INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cluster node %s not ok within %s: %v %q", s.Addr, readyTimeout, err, info)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nodes
}

// Command sends one command as the default user over RESP2 and returns the
// reply as text (a bulk string, a simple string, an integer, or an error);
// arrays are refused. Tests use it to set a server up.
func Command(addr string, args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	switch {
	case line == "":
		return "", fmt.Errorf("empty reply")
	case line[0] == '+' || line[0] == ':':
		return line[1:], nil
	case line[0] == '-':
		return "", fmt.Errorf("%s", line[1:])
	case line[0] == '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// Stop stops the server at addr now (SHUTDOWN NOSAVE), for a test of a node
// that went away; its cleanup then finds it gone.
func (s *Server) Stop() {
	_, _ = Command(s.Addr, "SHUTDOWN", "NOSAVE") // the connection closes without a reply
}

// waitReady pings addr until it answers PONG or the process exits.
func waitReady(addr string, exited <-chan error) error {
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited before ready: %v", err)
		default:
		}
		if got, err := Command(addr, "PING"); err == nil && got == "PONG" {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer PING within %s", addr, readyTimeout)
}

// stop sends SIGTERM and kills the process if it has not exited in time.
func stop(t testing.TB, cmd *exec.Cmd, exited <-chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		_ = err // a server stopped by a signal exits non-zero: its status says nothing here
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		err := <-exited
		_ = err
		t.Logf("redis-server (pid %d) ignored SIGTERM and was killed", cmd.Process.Pid)
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
