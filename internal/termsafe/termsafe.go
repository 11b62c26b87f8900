// Package termsafe makes text safe for a terminal or a model to show: it
// strips escape sequences, control characters and bidirectional overrides.
// It masks nothing; masking is pkg/egress's door, whose Text.Shown and
// Text.Line call this after the policy.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// Strip makes untrusted text safe to print on a terminal or hand to a
// model: it removes terminal escape sequences (CSI, OSC, DCS, SOS, PM, APC and
// two-byte ESC sequences, in their 7-bit and 8-bit forms), every C0 and C1
// control character except '\n' and '\t', DEL, and the Unicode bidirectional
// overrides that can disguise text; invalid UTF-8 bytes become U+FFFD.
func Strip(s string) string {
	if cleanText(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b:
			i = skipEscape(s, i+1)
		case r == 0x9b: // 8-bit CSI
			i = skipCSI(s, i+size)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // 8-bit OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
		case r == '\n' || r == '\t':
			b.WriteByte(byte(r))
			i++
		case isControl(r):
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// Line is Strip for text shown on one line (a status
// line, a table cell): what Strip removes goes, and the line breaks
// and tabs it keeps, with U+2028 and U+2029, become spaces.
func Line(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\t', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, Strip(s))
}

// cleanText is the fast path: plain printable ASCII (plus \n, \t) needs no copy.
func cleanText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return cleanUnicode(s[i:])
		}
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func cleanUnicode(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if (r < 0x20 && r != '\n' && r != '\t') || isControl(r) {
			return false
		}
	}
	return true
}

// isControl reports C0 (other than \n, \t), DEL, C1 and bidi override/isolate runes.
func isControl(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// skipEscape returns the index after the escape sequence whose ESC ended at i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20-0x2F, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		return i + 1
	}
	return i
}

// skipCSI skips parameter bytes 0x30-0x3F, intermediates 0x20-0x2F and the final byte 0x40-0x7E.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		return i + 1
	}
	return i
}

// skipString skips an OSC/DCS/SOS/PM/APC payload up to BEL, ESC \ or the
// 8-bit ST (U+009C); an unterminated one runs to the end of the text.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i + 1
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + 2
		}
		i++
	}
	return i
}
