package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/superbiz/superbiz/internal/ptytest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// ownInitLimitMS is the most package initialisation of our own may take:
// regular expressions, reflection and tables are built on first use instead,
// so `superbiz --help` and `version` start fast.
const ownInitLimitMS = 0.1

// TestOwnInitUnderLimit runs the binary under GODEBUG=inittrace=1 and lists
// every package of this module whose init takes more than ownInitLimitMS.
// A package's time is its least over several runs, so a busy machine's
// scheduling noise is not counted against it.
func TestOwnInitUnderLimit(t *testing.T) {
	const runs = 7
	least := map[string]float64{}
	for _, args := range [][]string{{"--help"}, {"version"}} {
		for range runs {
			e := newEnv(t, testenv.ClosedURL(t))
			e.vars["GODEBUG"] = "inittrace=1"
			r := e.run(t, args...)
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			for pkg, ms := range ownInits(t, r.stderr) {
				if old, seen := least[pkg]; !seen || ms < old {
					least[pkg] = ms
				}
			}
		}
	}
	if len(least) == 0 {
		t.Fatal("no init of ours in the trace: is GODEBUG=inittrace=1 honoured?")
	}
	var over []string
	for pkg, ms := range least {
		if ms > ownInitLimitMS {
			over = append(over, fmt.Sprintf("%s %.3f ms", pkg, ms))
		}
	}
	sort.Strings(over)
	if len(over) > 0 {
		t.Errorf("init of our own over %.1f ms (least of %d runs); move the work to first use:\n%s", ownInitLimitMS, runs, strings.Join(over, "\n"))
	}
}

// terminalQuery matches what asks a terminal to answer: the foreground and
// background colour (OSC 10/11), the device attributes (DA1, DA2), a mode
// report (DECRQM), the keyboard protocol (kitty) and the cursor position.
var terminalQuery = regexp.MustCompile(`\x1b\](?:10|11);\?|\x1b\[[>=]?0?c|\x1b\[\??\d+\$p|\x1b\[\?u|\x1b\[6n`)

// TestNoTerminalQueryWithoutView runs commands that draw no full-screen view
// on a pseudo-terminal that never answers, with colour on: they write no
// query to it at all. bubbletea v1 asked for the background colour in its
// package init, so every command, even `superbiz version`, did (and waited
// up to 5 s on a terminal that does not answer); v2 asks only when a program
// asks, and the report printed on a terminal takes its palette from the
// environment.
func TestNoTerminalQueryWithoutView(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		stdoutTTY bool
		want      string // printed when the command did its work
	}{
		{"version", []string{"version"}, true, "superbiz "},
		{"diagnose json piped", []string{"diagnose", "--demo", "-o", "json"}, false, `"run_id"`},
		{"diagnose no-tui on a terminal", []string{"diagnose", "--demo", "--no-tui"}, true, "run r_"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, testenv.ClosedURL(t))
			delete(e.vars, "NO_COLOR")
			e.vars["TERM"] = "xterm-256color"
			term, stdout := ptyRun(t, e, tt.stdoutTTY, tt.args...)
			if !strings.Contains(term+stdout, tt.want) {
				t.Fatalf("superbiz %q printed no %q:\n--- terminal\n%q\n--- stdout\n%q", tt.args, tt.want, term, stdout)
			}
			if q := terminalQuery.FindAllString(term, -1); len(q) > 0 {
				t.Errorf("superbiz %q wrote %d terminal queries %q; want none:\n%q", tt.args, len(q), q, term)
			}
		})
	}
}

// ptyRun runs the binary with stdin and stderr on a pseudo-terminal (its
// controlling terminal) that never answers, and stdout there too or in a
// buffer; it returns what was written to the terminal and to the buffer.
func ptyRun(t *testing.T, e *env, stdoutTTY bool, args ...string) (term, stdout string) {
	t.Helper()
	master, slave := ptytest.Open(t)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, out, _ := e.command(ctx, args...)
	c.Stdin, c.Stderr = slave, slave
	if stdoutTTY {
		c.Stdout = slave
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// The child holds the terminal; reading the master ends (EIO) once the
	// child has closed it.
	_ = slave.Close()
	got, _ := io.ReadAll(master)
	if err := c.Wait(); err != nil {
		t.Fatalf("superbiz %q: %v\n%q", args, err, got)
	}
	return string(got), out.String()
}

// ownInits reads the inittrace lines of this module's packages:
// "init github.com/superbiz/superbiz/x @1.2 ms, 0.31 ms clock, 1024 bytes, 9 allocs".
func ownInits(t *testing.T, stderr string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 7 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/superbiz/superbiz") || f[6] != "clock," {
			continue
		}
		ms, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		out[f[1]] = ms
	}
	return out
}
