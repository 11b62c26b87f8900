// Command tripwire proves that no test touches the default port of a server
// superbiz talks to: .ci/run starts it before go test, it listens on each
// default port that is free (Ollama 11434, Prometheus 9090, Alertmanager 9093,
// MySQL 3306, PostgreSQL 5432) on 127.0.0.1 and ::1, records every connection it accepts as
// "port, first line, time, client" to a file, and answers HTTP 503 so a test
// that reached it cannot pass by accident. A busy port is reported as not
// watched on stderr, which is not a failure. It stops on SIGTERM or SIGINT,
// and by itself when the process that started it is gone.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// defaultPorts are the ports superbiz or its documentation names as a
// server's default: Ollama, Prometheus, Alertmanager, MySQL. No
// OpenAI-compatible URL has a default (model.url is required).
const defaultPorts = "11434,9090,9093,3306,5432"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// run parses the flags, watches the ports until ctx ends or the parent
// process goes away, and returns the exit code: 0 once stopped, 2 on bad
// flags or an unwritable record file.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("tripwire", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "file the connections are appended to, one line each (required)")
	ready := fs.String("ready", "", "file written with the watched addresses once every listener is up")
	portList := fs.String("ports", defaultPorts, "comma-separated ports to watch (tests pass ephemeral ones)")
	readTimeout := fs.Duration("read-timeout", 2*time.Second, "how long a connection may take to send its first line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "tripwire: usage: tripwire -out FILE [-ready FILE] [-ports 11434,9090] [-read-timeout 2s]")
		return 2
	}
	ports, err := parsePorts(*portList)
	if err != nil {
		fmt.Fprintf(stderr, "tripwire: -ports: %v\n", err)
		return 2
	}
	rec, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "tripwire: %v\n", err)
		return 2
	}
	defer rec.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go stopWithParent(ctx, cancel, os.Getppid())

	w := newWatcher(rec, *readTimeout, stderr)
	watched := w.listen(ports)
	if *ready != "" {
		if err := os.WriteFile(*ready, []byte(strings.Join(watched, "\n")+"\n"), 0o600); err != nil {
			w.close()
			fmt.Fprintf(stderr, "tripwire: ready file: %v\n", err)
			return 2
		}
	}
	<-ctx.Done()
	w.close()
	return 0
}

// parsePorts reads a comma-separated list of TCP ports.
func parsePorts(list string) ([]int, error) {
	var ports []int
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := strconv.Atoi(f)
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("%q is not a TCP port", f)
		}
		ports = append(ports, p)
	}
	if len(ports) == 0 {
		return nil, errors.New("no port given")
	}
	return ports, nil
}

// stopWithParent cancels when the process that started the tripwire is gone
// (the parent pid changes as the tripwire is re-parented), so a CI script
// killed without running its trap cannot leave the tripwire behind.
func stopWithParent(ctx context.Context, cancel context.CancelFunc, parent int) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if os.Getppid() != parent {
				cancel()
				return
			}
		}
	}
}
