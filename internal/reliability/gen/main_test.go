package main

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

func all() []reliability.Figure {
	var figs []reliability.Figure
	for i, s := range sections {
		figs = append(figs, reliability.Figure{Section: s, Test: "TestB", Row: "b", Values: map[string]any{"n": float64(i), "outcome": "ok|x"}})
		figs = append(figs, reliability.Figure{Section: s, Test: "TestA", Row: "a", Values: map[string]any{"ms": 1.5}})
	}
	return figs
}

func TestRenderEverySection(t *testing.T) {
	doc, err := render(all(), "stamp")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sections {
		if !strings.Contains(doc, "\n## "+s+"\n") {
			t.Errorf("section %q missing", s)
		}
	}
	// Sorted by test, columns are the union, pipes escaped.
	if !strings.Contains(doc, "| test | row | ms | n | outcome |\n|---|---|---|---|---|\n| TestA | a | 1.50 |  |  |\n| TestB | b |  | 0 | ok\\|x |\n") {
		t.Errorf("table shape wrong:\n%s", doc)
	}
}

func TestRenderRefusesMissingOrUnknownSection(t *testing.T) {
	figs := all()[2:] // drop the first section's rows
	if _, err := render(figs, ""); err == nil || !strings.Contains(err.Error(), sections[0]) {
		t.Fatalf("missing section not reported: %v", err)
	}
	figs = append(all(), reliability.Figure{Section: "Bogus", Test: "T", Row: "r"})
	if _, err := render(figs, ""); err == nil || !strings.Contains(err.Error(), "Bogus") {
		t.Fatalf("unknown section not reported: %v", err)
	}
}

func TestReadRejectsBadLine(t *testing.T) {
	if _, err := read(strings.NewReader("{\"section\":1}\n"), "f"); err == nil || !strings.Contains(err.Error(), "f:1") {
		t.Fatalf("bad line not named: %v", err)
	}
}
