// Package textclip cuts text to a bound, so that every bound in superbiz is
// counted one way: Bytes and BytePrefix count UTF-8 bytes and cut on a rune
// boundary (what stored, logged and model-bound text is limited by); Width
// counts terminal columns (what a table cell is limited by). It depends on
// no other superbiz package, so any layer may use it.
package textclip

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Marker ends every marked cut, so a reader sees that text was left out.
const Marker = "…"

// Bytes returns s when it holds at most n bytes, else its longest prefix
// that, with Marker appended, holds at most n bytes and ends on a rune
// boundary. The result is never longer than n bytes (below len(Marker) the
// prefix goes unmarked).
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < len(Marker) {
		return BytePrefix(s, n)
	}
	return BytePrefix(s, n-len(Marker)) + Marker
}

// BytePrefix returns the longest prefix of s of at most n bytes that ends on
// a rune boundary, unmarked: for callers that mark the cut themselves or cut
// a working window.
func BytePrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Width returns s when it fills at most n terminal columns, else its longest
// prefix that, without trailing spaces and with Marker (one column)
// appended, fills at most n columns. Wide (CJK) characters count two
// columns, combining marks none.
func Width(s string, n int) string {
	if ansi.StringWidth(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return strings.TrimRight(ansi.Truncate(s, n-1, ""), " ") + Marker
}
