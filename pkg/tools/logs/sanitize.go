package logs

import (
	"strings"
	"unicode/utf8"

	"github.com/superbiz/superbiz/pkg/redact"
)

// cleanText makes a log-derived string safe to show to a model or a terminal:
// the shared redact.StripControl drops escape sequences, control and bidi
// characters and replaces invalid UTF-8; tabs then become spaces, and
// newlines are kept only when keepNewlines is set (stack traces).
func cleanText(b []byte, keepNewlines bool) string {
	s := redact.StripControl(string(b))
	if keepNewlines {
		return strings.ReplaceAll(s, "\t", " ")
	}
	return strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
}

// bound cuts s to at most max bytes on a rune boundary, marking the cut with "…".
func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ell = "…"
	cut := max - len(ell)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}
