// Package reliability lets tests record the figures that docs/RELIABILITY.md
// reports (secret shapes planted and leaked, SQL statements tried and
// admitted, bombs with their time and memory, model faults and outcomes, kill
// iterations, fuzz executions), so the document is generated from a test run
// instead of written by hand.
//
// A test calls Record; nothing happens unless the environment variable named
// by EnvOut names a file, in which case one JSON line is appended to it. The
// generator (cmd in internal/reliability/gen) turns those lines into the
// document.
package reliability

import (
	"encoding/json"
	"os"
	"sync"
	"testing"
)

// EnvOut names the environment variable holding the JSON-lines file that
// Record appends to; unset, Record does nothing.
const EnvOut = "SUPERBIZ_RELIABILITY_OUT"

// Sections of the document, in the order it shows them; a figure names one.
const (
	SectionSecrets    = "Secret shapes per sink"
	SectionSQL        = "SQL statements tried and admitted"
	SectionBombs      = "Config and source bombs"
	SectionModel      = "Model faults and their outcomes"
	SectionKill       = "SIGKILL iterations and integrity"
	SectionConcurrent = "Concurrent processes"
	SectionFuzz       = "Fuzz targets and executions"
	SectionMutation   = "Mutation-style tests"
	SectionEvidence   = "Evidence coverage and true extremes"
)

// Figure is one recorded line: which test, under which section, one row of
// named values (counts, durations in ms, bytes, outcome words).
type Figure struct {
	Section string         `json:"section"`
	Test    string         `json:"test"`
	Row     string         `json:"row"`
	Values  map[string]any `json:"values"`
}

var mu sync.Mutex // serialises appends from parallel tests of one process

// Record appends one figure when EnvOut is set. A failure to write fails the
// test: a figure that silently goes missing would make the document lie.
func Record(t testing.TB, section, row string, values map[string]any) {
	t.Helper()
	path := os.Getenv(EnvOut)
	if path == "" {
		return
	}
	line, err := json.Marshal(Figure{Section: section, Test: t.Name(), Row: row, Values: values})
	if err != nil {
		t.Fatalf("reliability: encode figure %q: %v", row, err)
	}
	line = append(line, '\n')
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("reliability: open %s: %v", path, err)
	}
	// One write of one line with O_APPEND: lines from test processes running
	// at once do not interleave.
	if _, err := f.Write(line); err != nil {
		f.Close()
		t.Fatalf("reliability: write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("reliability: close %s: %v", path, err)
	}
}
