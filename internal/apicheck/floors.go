package apicheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Floors is the floor chart of docs/ARCHITECTURE.md ("The house and its
// floors"): which floor each package pattern sits on. A package imports only
// from its own floor or the floors below.
type Floors struct {
	rules []floorRule
}

// floorRule is one package pattern of the chart: its path segments ("*" for
// a <placeholder> segment) and its floor.
type floorRule struct {
	pattern string
	segs    []string
	floor   int
}

// ParseFloors reads the first fenced block after the "## The house and its
// floors" heading of an ARCHITECTURE.md. A line's package cell lists
// patterns separated by commas: "internal/eval", "pkg/tools/<tool>/",
// "main.go → cmd/"; a <placeholder> stands for any one path segment, and a
// pattern covers the packages below it. A line without "floor N" continues
// the floor above it; one whose cell is empty continues a description.
func ParseFloors(doc []byte) (*Floors, error) {
	_, after, ok := bytes.Cut(doc, []byte("\n## The house and its floors\n"))
	if !ok {
		return nil, errors.New("no \"## The house and its floors\" heading")
	}
	_, block, ok := bytes.Cut(after, []byte("\n```\n"))
	if !ok {
		return nil, errors.New("no fenced chart after the floors heading")
	}
	block, _, ok = bytes.Cut(block, []byte("\n```"))
	if !ok {
		return nil, errors.New("the floors chart's fence is not closed")
	}
	// A line: "floor N" in the first column, then the package cell, then
	// two or more spaces and the description.
	chartLine := regexp.MustCompile(`^(?:floor (\d+))?\s*(\S.*?)?(?:\s{2,}.*)?$`)
	f := &Floors{}
	floor := -1
	sc := bufio.NewScanner(bytes.NewReader(block))
	for sc.Scan() {
		line := sc.Text()
		// A continued description starts far right: no package cell.
		if strings.TrimSpace(line) == "" || len(line)-len(strings.TrimLeft(line, " ")) > 20 {
			continue
		}
		m := chartLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("chart line %q: no package cell", line)
		}
		if m[1] != "" {
			floor, _ = strconv.Atoi(m[1])
		}
		if floor < 0 {
			return nil, fmt.Errorf("chart line %q comes before any floor", line)
		}
		for _, cell := range strings.Split(m[2], ",") {
			for _, pat := range strings.Fields(cell) {
				if pat == "→" || strings.HasSuffix(pat, ".go") {
					continue
				}
				f.add(strings.TrimSuffix(pat, "/"), floor)
			}
		}
	}
	if len(f.rules) == 0 {
		return nil, errors.New("the floors chart names no package")
	}
	return f, nil
}

// add records pattern on floor.
func (f *Floors) add(pattern string, floor int) {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") {
			segs[i] = "*"
		}
	}
	f.rules = append(f.rules, floorRule{pattern: pattern, segs: segs, floor: floor})
}

// Of is the floor of the package at path (relative to the module) and the
// chart's pattern that placed it: the most specific pattern covering it
// (most segments, then fewest placeholders); ok is false when none does.
func (f *Floors) Of(path string) (floor int, pattern string, ok bool) {
	segs := strings.Split(path, "/")
	best, bestWild := -1, 0
	for _, r := range f.rules {
		if len(r.segs) > len(segs) {
			continue
		}
		wild, match := 0, true
		for i, s := range r.segs {
			if s == "*" {
				wild++
			} else if s != segs[i] {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if len(r.segs) > best || (len(r.segs) == best && wild < bestWild) {
			best, bestWild, floor, pattern, ok = len(r.segs), wild, r.floor, r.pattern, true
		}
	}
	return floor, pattern, ok
}

// Crossing is one import the chart forbids: a package importing from a
// floor above its own, or a package the chart does not place.
type Crossing struct {
	From, To           string
	FromFloor, ToFloor int
	Unplaced           string // the package no pattern covers, when that is the fault
}

// String reads as one line of a report.
func (c Crossing) String() string {
	if c.Unplaced != "" {
		return fmt.Sprintf("%s is on no floor of the chart", c.Unplaced)
	}
	return fmt.Sprintf("%s (floor %d) imports %s (floor %d)", c.From, c.FromFloor, c.To, c.ToFloor)
}

// Check lists the packages of module matching patterns in dir (their own
// imports, not their tests'; a folder of tests only is skipped) and returns every import the chart forbids,
// sorted.
func (f *Floors) Check(dir, module string, patterns ...string) ([]Crossing, error) {
	pkgs, err := listPackages(dir, "ImportPath,GoFiles,Imports,Error", patterns...)
	if err != nil {
		return nil, err
	}
	var found []Crossing
	unplaced := map[string]bool{}
	place := func(p string) (int, bool) {
		fl, _, ok := f.Of(p)
		if !ok && !unplaced[p] {
			unplaced[p] = true
			found = append(found, Crossing{Unplaced: p})
		}
		return fl, ok
	}
	for _, p := range pkgs {
		from := strings.TrimPrefix(p.ImportPath, module+"/")
		if from == module || len(p.GoFiles) == 0 {
			continue // main.go, the top of the house; a folder of tests only (e2e)
		}
		ff, ok := place(from)
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := strings.TrimPrefix(imp, module+"/")
			if tf, ok := place(to); ok && tf > ff {
				found = append(found, Crossing{From: from, To: to, FromFloor: ff, ToFloor: tf})
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].String() < found[j].String() })
	return found, nil
}
