package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// firstLineMax bounds what is read of a connection's first line.
const firstLineMax = 512

// refusalBody says what answered, for whoever reads the failed response.
const refusalBody = "tripwire: a test reached a default server port\n"

// refusal is what every connection gets: an HTTP 503 that no client of
// Ollama, Prometheus or Alertmanager takes for an answer, and that a MySQL
// client (which waits for the server's greeting) rejects as a bad handshake.
var refusal = fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(refusalBody), refusalBody)

// watcher owns the listeners and appends one record per accepted connection.
type watcher struct {
	readTimeout time.Duration
	stderr      io.Writer

	mu  sync.Mutex // serialises writes to rec and stderr
	rec io.Writer

	listeners []net.Listener
	conns     sync.WaitGroup
}

func newWatcher(rec io.Writer, readTimeout time.Duration, stderr io.Writer) *watcher {
	return &watcher{rec: rec, readTimeout: readTimeout, stderr: stderr}
}

// listen opens a listener on 127.0.0.1 and ::1 for each port and returns the
// addresses it watches; an address it cannot bind (in use, or no IPv6) is
// reported on stderr as not watched.
func (w *watcher) listen(ports []int) []string {
	var watched []string
	for _, p := range ports {
		for _, host := range []string{"127.0.0.1", "::1"} {
			addr := net.JoinHostPort(host, strconv.Itoa(p))
			l, err := net.Listen("tcp", addr)
			if err != nil {
				w.note("tripwire: not watched: %s: %v\n", addr, err)
				continue
			}
			w.note("tripwire: watching %s\n", addr)
			w.listeners = append(w.listeners, l)
			watched = append(watched, addr)
			w.conns.Add(1)
			go w.accept(l, p)
		}
	}
	return watched
}

// accept handles connections until the listener is closed.
func (w *watcher) accept(l net.Listener, port int) {
	defer w.conns.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				w.note("tripwire: accept on %s: %v\n", l.Addr(), err)
			}
			return
		}
		w.conns.Add(1)
		go w.handle(c, port)
	}
}

// handle records one connection: who opened it (looked up while it is
// still open), its first line (bounded in size and time), and when.
func (w *watcher) handle(c net.Conn, port int) {
	defer w.conns.Done()
	defer c.Close()
	at := time.Now().UTC()
	client := clientOf(c)
	line := firstLine(c, w.readTimeout)
	w.mu.Lock()
	_, err := fmt.Fprintf(w.rec, "%d\t%q\t%s\t%s\n", port, line, at.Format(time.RFC3339Nano), client)
	w.mu.Unlock()
	if err != nil {
		w.note("tripwire: record connection to port %d from %s: %v\n", port, client, err)
	}
	_ = c.SetWriteDeadline(time.Now().Add(w.readTimeout))
	_, _ = io.WriteString(c, refusal) // the client may be gone; the record is what counts
}

// firstLine reads up to the first newline, at most firstLineMax bytes and
// for at most timeout; a client that sends nothing (MySQL's waits for the
// server) gives "(no bytes)".
func firstLine(c net.Conn, timeout time.Duration) string {
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	b, _ := bufio.NewReader(io.LimitReader(c, firstLineMax)).ReadSlice('\n')
	b = bytes.TrimRight(b, "\r\n")
	if len(b) == 0 {
		return "(no bytes)"
	}
	return string(b)
}

// close stops accepting and waits for the connections in hand to be recorded.
func (w *watcher) close() {
	for _, l := range w.listeners {
		_ = l.Close()
	}
	w.conns.Wait()
}

// note writes one line to stderr.
func (w *watcher) note(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.stderr, format, args...)
}
