package logs

import (
	"strings"

	"github.com/superbiz/superbiz/internal/termsafe"
)

// cleanText makes a log-derived string safe to show to a model or a terminal:
// the shared redact.StripControl drops escape sequences, control and bidi
// characters and replaces invalid UTF-8; tabs become spaces, and newlines
// are kept only when keepNewlines is set (stack traces), else they become
// spaces too (redact.StripControlLine).
func cleanText(b []byte, keepNewlines bool) string {
	if !keepNewlines {
		return termsafe.Line(string(b))
	}
	return strings.ReplaceAll(termsafe.Strip(string(b)), "\t", " ")
}
