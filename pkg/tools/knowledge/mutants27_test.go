package knowledge

import "testing"

// A CamelCase query word is covered part by part, and each part also by the
// whole identifier written as one word (a config key "connectionpool"), so
// a section naming only the joined identifier covers every part.
func TestCamelCasePartsCoveredByTheWhole(t *testing.T) {
	atoms := coverageAtoms(queryTerms("ConnectionPool"))
	if len(atoms) != 2 {
		t.Fatalf("atoms %+v: want one per part", atoms)
	}
	for _, tt := range []struct {
		text string
		want int
	}{
		{"set connectionpool size to 50", 2},
		{"the connection was reset", 1},
		{"pool of connections", 2},
		{"nothing relevant here", 0},
	} {
		if n, _ := covered(roughTokens(tt.text), atoms); n != tt.want {
			t.Errorf("ConnectionPool over %q covers %d, want %d", tt.text, n, tt.want)
		}
	}
}
