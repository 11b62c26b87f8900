// Package goldenfile gives every package one way to keep a golden file:
// charmbracelet/x/exp/golden's comparison and its -update flag (which
// teatest already registers), with a file name the test chooses instead of
// the test's own name.
package goldenfile

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// Ext ends every golden file's name; x/exp/golden appends it.
const Ext = ".golden"

// named gives x/exp/golden a file name other than the test's: it reads
// testdata/<Name()>.golden.
type named struct {
	testing.TB
	name string
}

func (n named) Name() string { return n.name }

// Check fails the test when got differs from testdata/name (which ends in
// .golden), showing the diff; `go test -update` rewrites the file instead.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	base, ok := strings.CutSuffix(name, Ext)
	if !ok {
		t.Fatalf("golden file %q: the name must end in %s", name, Ext)
		return
	}
	golden.RequireEqual(named{TB: t, name: base}, got)
}
