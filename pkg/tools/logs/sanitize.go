package logs

import (
	"strings"
	"unicode/utf8"
)

// cleanText makes a log-derived string safe to show to a model or a terminal:
// it drops terminal escape sequences (CSI, OSC and two-byte ESC forms), C0/C1
// control characters other than newline and tab, DEL, and bidirectional
// override characters, and replaces invalid UTF-8 with U+FFFD. Tabs become
// spaces; newlines are kept only when keepNewlines is set (stack traces).
func cleanText(b []byte, keepNewlines bool) string {
	if isPlain(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c == 0x1b { // ESC
			i = skipEscape(b, i)
			continue
		}
		if c < utf8.RuneSelf {
			switch {
			case c == '\n':
				if keepNewlines {
					sb.WriteByte('\n')
				} else {
					sb.WriteByte(' ')
				}
			case c == '\t':
				sb.WriteByte(' ')
			case c < 0x20 || c == 0x7f:
				// dropped control character
			default:
				sb.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteRune(utf8.RuneError)
		case r >= 0x80 && r <= 0x9f: // C1 controls
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
			// bidi overrides could make a line read differently than it is
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// isPlain reports whether b is printable ASCII only, the common fast path.
func isPlain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// skipEscape returns the index just after the escape sequence starting at b[i].
func skipEscape(b []byte, i int) int {
	i++ // ESC
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40..0x7e
		i++
		for i < len(b) {
			c := b[i]
			i++
			if c >= 0x40 && c <= 0x7e {
				return i
			}
			if c < 0x20 { // malformed: stop at the control byte
				return i - 1
			}
		}
		return i
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: until BEL or ST (ESC \)
		i++
		for i < len(b) {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
			if b[i] == '\n' {
				return i
			}
			i++
		}
		return i
	default: // two-byte escape
		return i + 1
	}
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
