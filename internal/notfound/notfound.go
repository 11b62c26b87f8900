// Package notfound is the one shape of "no such name" (playbook, log source,
// tool, run, session): the name, the valid choices or what lists them, and a
// did-you-mean when a choice is close.
package notfound

import (
	"fmt"
	"math"
	"strings"
)

// Error is a name that names nothing of its kind. Commands report it as a
// usage error (exit 2).
type Error struct {
	// Kind is what was looked for: "playbook", "log source", "tool", "run", "session".
	Kind string
	// Name is what the user gave.
	Name string
	// Where says where it was looked for (a run store path), "" when obvious.
	Where string
	// Valid are the choices, when they are few enough to list.
	Valid []string
	// Hint says what lists the choices or how to add one, "" for none.
	Hint string
}

// maxDistance is how many single-character edits a name may be from a
// choice for "did you mean" (cobra's suggestion distance).
const maxDistance = 2

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown %s %q", e.Kind, e.Name)
	if e.Where != "" {
		b.WriteString(" in " + e.Where)
	}
	if len(e.Valid) > 0 {
		b.WriteString("; valid: " + strings.Join(e.Valid, ", "))
		if s, ok := Closest(e.Name, e.Valid); ok {
			fmt.Fprintf(&b, "; did you mean %q?", s)
		}
	}
	if e.Hint != "" {
		b.WriteString("\nhint: " + e.Hint)
	}
	return b.String()
}

// Closest returns the choice nearest to name (a prefix either way, or at
// most maxDistance edits), and whether one is that close.
func Closest(name string, choices []string) (string, bool) {
	best, bestD := "", maxDistance+1
	lower := strings.ToLower(name)
	for _, c := range choices {
		lc := strings.ToLower(c)
		d := Distance(lower, lc)
		if name != "" && (strings.HasPrefix(lc, lower) || strings.HasPrefix(lower, lc)) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD <= maxDistance && best != name
}

// maxRunes bounds the names Distance compares, so a huge argument costs
// nothing; longer names are never close.
const maxRunes = 64

// Distance is the Levenshtein distance between a and b in runes (the one
// edit distance of every did-you-mean); math.MaxInt past maxRunes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > maxRunes || len(rb) > maxRunes {
		return math.MaxInt
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
