package sqlquery

import "testing"

// The tests of this file kill mutants gremlins chose in mymask.go (issue
// 34, docs/MUTATION.md, section "mutate34b"): each asserts a behaviour of
// the MySQL/MariaDB error masking at an edge the other tests did not reach.

// A message whose first byte opens the quoted data is masked like any
// other: the span at index 0 is a span.
func TestMyMaskQuotedAtStart(t *testing.T) {
	for _, tt := range []struct {
		in   string
		data bool
		want string
	}{
		{"'HunterTwoAlpaca9' is not a valid value", true, "'[REDACTED]' is not a valid value"},
		{"'HunterTwoAlpaca9' for key 'PRIMARY'", false, "'[REDACTED]'"},
		{"'users' is not a view", false, "'users' is not a view"},
	} {
		if got := myMaskQuoted(tt.in, "SELECT * FROM users", tt.data); got != tt.want {
			t.Errorf("myMaskQuoted(%q, data %v)\n got %q\nwant %q", tt.in, tt.data, got, tt.want)
		}
	}
}

// An apostrophe between two ASCII letters, the ends of a–z and A–Z
// included, is part of a word ("doesn't") and opens no span; one next to a
// byte just outside those ranges does.
func TestMyNextQuoteLetterEnds(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"a'a", -1}, {"z'z", -1}, {"A'A", -1}, {"Z'Z", -1},
		{"a'Z", -1}, {"Z'a", -1},
		{"`'a", 1}, {"a'`", 1}, {"{'a", 1}, {"a'{", 1},
		{"@'a", 1}, {"a'@", 1}, {"['a", 1}, {"a'[", 1},
	} {
		if got := myNextQuote(tt.s, 0, 1); got != tt.want {
			t.Errorf("myNextQuote(%q, 0, 1) = %d, want %d", tt.s, got, tt.want)
		}
		if got := myNextQuote(tt.s, len(tt.s)-1, -1); got != tt.want {
			t.Errorf("myNextQuote(%q, end, -1) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
