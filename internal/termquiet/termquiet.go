// Package termquiet keeps the terminal out of bubbletea v1's package init,
// which asks it for its background colour (lipgloss.HasDarkBackground via
// termenv: OSC 11 in raw mode, then up to termenv's 5 s for an answer) on
// every command, even `superbiz version`. It imports the standard library
// only, so Go's init order (the first ready package by import path, and this
// path sorts before golang.org/x/sys, which bubbletea waits for) runs its init
// before bubbletea's: there it sets TERM to a value termenv never queries.
// internal/tui/termquery, which imports bubbletea, puts TERM back in its own
// init; the views ask the terminal themselves, with a short bound, only when
// colours matter.
package termquiet

import "os"

// quietTerm is a TERM termenv does not query (it skips dumb*, screen* and
// tmux*).
const quietTerm = "dumb"

// original is TERM as the process got it, written once by init and read by
// Restore; hidden says init replaced it.
var original struct {
	value           string
	present, hidden bool
}

func init() {
	original.value, original.present = os.LookupEnv("TERM")
	// TERM is a valid name, so Setenv cannot fail; were it to, TERM stays as
	// it was and bubbletea asks as it always did.
	original.hidden = os.Setenv("TERM", quietTerm) == nil
}

// Restore puts TERM back as the process got it (unset if it was unset), so
// everything after package init and every child process sees the original.
// It must run in an init that follows bubbletea's.
func Restore() {
	if !original.hidden {
		return
	}
	original.hidden = false
	var err error
	if original.present {
		err = os.Setenv("TERM", original.value)
	} else {
		err = os.Unsetenv("TERM")
	}
	if err != nil {
		// A value read from the environment can always be set back.
		panic("termquiet: restoring TERM: " + err.Error())
	}
}
