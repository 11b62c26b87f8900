package e2e

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

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
			quietBeforeBubbletea(t, r.stderr)
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

// quietBeforeBubbletea checks the init order internal/termquiet relies on:
// its init hides TERM before bubbletea v1's init asks the terminal for its
// colour, and internal/tui/termquery's puts it back after.
func quietBeforeBubbletea(t *testing.T, stderr string) {
	t.Helper()
	at := map[string]int{}
	for i, line := range strings.Split(stderr, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			at[f[1]] = i + 1
		}
	}
	quiet, tea := at["github.com/superbiz/superbiz/internal/termquiet"], at["github.com/charmbracelet/bubbletea"]
	restore := at["github.com/superbiz/superbiz/internal/tui/termquery"]
	if quiet == 0 || tea == 0 || restore == 0 || !(quiet < tea && tea < restore) {
		t.Fatalf("init order (trace lines, 0 = absent): termquiet %d, bubbletea %d, termquery %d; want termquiet < bubbletea < termquery", quiet, tea, restore)
	}
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
