package redact

import (
	"strings"
	"unicode/utf8"
)

// fold is the text the rules see when a secret's key is written with
// characters that only look like ASCII or hide inside it: full-width forms
// (ｐａｓｓｗｏｒｄ, the full-width colon and equals sign of Chinese text)
// become their ASCII letters, the ideographic space a space, and the
// invisible characters that can split a key word (zero-width space, joiner
// and non-joiner, word joiner, BOM, soft hyphen, invisible operators) go.
// It returns s itself when there is nothing to fold.
func fold(s string) string {
	if !hasFoldable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 0xff01 && r <= 0xff5e:
			b.WriteByte(byte(r - 0xfee0))
		case r == 0x3000:
			b.WriteByte(' ')
		case isInvisible(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isInvisible reports the format characters that render as nothing inside a word.
func isInvisible(r rune) bool {
	switch r {
	case 0x00ad, 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff:
		return true
	}
	return false
}

// hasFoldable reports whether fold would change s; plain ASCII costs one
// byte scan.
func hasFoldable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r >= 0xff01 && r <= 0xff5e) || r == 0x3000 || isInvisible(r) {
			return true
		}
		i += size - 1
	}
	return false
}

// foldLines masks the secrets that only fold reveals: each line of s that
// fold changes is masked folded, and when that masks more than the line as
// written it replaces the line (its full-width forms made ASCII, its
// invisible characters gone); other lines are kept as they were written.
func foldLines(s string) string {
	var b strings.Builder
	changed := false
	for rest := s; ; {
		line, next, more := strings.Cut(rest, "\n")
		out := line
		if f := fold(line); f != line {
			if m := maskRules(f); m != f {
				out, changed = m, true
			}
		}
		b.WriteString(out)
		if !more {
			break
		}
		b.WriteByte('\n')
		rest = next
	}
	if !changed {
		return s
	}
	return b.String()
}
