package logs

import (
	"strings"

	"github.com/superbiz/superbiz/pkg/redact"
)

// cleanText makes a log-derived string safe to show to a model or a terminal:
// the shared redact.StripControl drops escape sequences, control and bidi
// characters and replaces invalid UTF-8; tabs become spaces, and newlines
// are kept only when keepNewlines is set (stack traces), else they become
// spaces too (redact.StripControlLine).
func cleanText(b []byte, keepNewlines bool) string {
	if !keepNewlines {
		return redact.StripControlLine(string(b))
	}
	return strings.ReplaceAll(redact.StripControl(string(b)), "\t", " ")
}

// maxKnownKeys bounds the memo of key verdicts one call keeps.
const maxKnownKeys = 4096

// maxMaskKey bounds the length of a key the masker judges; longer "keys" are
// prose, not field names.
const maxMaskKey = 128

// secretMasker masks values by the name of their key (redact.IsSecretKey), in
// parsed fields and in log text that carries key=value or JSON members, so a
// password, token or Authorization header reaches no sink whatever its value
// looks like. It remembers each key's verdict: log lines repeat their keys.
type secretMasker struct {
	known map[string]bool
}

func newSecretMasker() *secretMasker {
	return &secretMasker{known: map[string]bool{}}
}

// isSecret reports whether key, or any dotted prefix of it, names a secret:
// "headers.Authorization" by its last part, "token.value" (the members of a
// secret object) by its first.
func (m *secretMasker) isSecret(key string) bool {
	if v, ok := m.known[key]; ok {
		return v
	}
	v := redact.IsSecretKey(key)
	for i := 0; !v && i < len(key); i++ {
		if key[i] == '.' && i > 0 {
			v = redact.IsSecretKey(key[:i])
		}
	}
	if len(m.known) < maxKnownKeys {
		m.known[strings.Clone(key)] = v
	}
	return v
}

// field is the value to keep for a parsed field: the marker when its key
// names a secret, else the value with secret members inside it masked (a
// raw JSON array or deep object kept as text).
func (m *secretMasker) field(key, val string) string {
	if m.isSecret(key) {
		if val == "" {
			return val
		}
		return redact.Marker
	}
	return m.text(val)
}

// text masks the values of key=value pairs and of "key": value JSON members
// (also escaped, \"key\":) whose key names a secret. A quoted value is masked
// to its closing quote (or the end of the text when it is cut), an object or
// array whole, a bare value to the next space. key: value prose is left to
// redact.String, which knows the header shapes.
func (m *secretMasker) text(s string) string {
	var b strings.Builder
	copied := 0
	i := 0
	for i < len(s) {
		k := strings.IndexAny(s[i:], "=:")
		if k < 0 {
			break
		}
		sep := i + k
		i = sep + 1
		key, quoted := keyBefore(s, sep)
		if key == "" || (s[sep] == ':' && !quoted) || !m.isSecret(key) {
			continue
		}
		vs, ve := valueAfter(s, sep+1, s[sep] == ':')
		if ve <= vs || s[vs:ve] == redact.Marker {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[copied:vs])
		b.WriteString(redact.Marker)
		copied, i = ve, ve
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// keyBefore returns the key that ends at s[sep] ('=' or ':'), and whether it
// was quoted ("key", \"key\", 'key'); "" when there is none.
func keyBefore(s string, sep int) (string, bool) {
	j := sep
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		q := s[j-1]
		k := strings.LastIndexByte(s[:j-1], q)
		if k < 0 || j-1-k-1 > maxMaskKey {
			return "", false
		}
		return strings.TrimSuffix(s[k+1:j-1], `\`), true
	}
	if j != sep { // "key =" without quotes: prose
		return "", false
	}
	k := j
	for k > 0 && j-k < maxMaskKey && isKeyByte(s[k-1]) {
		k--
	}
	return s[k:j], false
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '@'
}

// valueAfter returns the span of the value that starts at s[p] (after spaces
// when json): inside its quotes, a whole object or array, or a bare word.
func valueAfter(s string, p int, json bool) (int, int) {
	if json {
		for p < len(s) && s[p] == ' ' {
			p++
		}
	}
	if p >= len(s) {
		return p, p
	}
	switch c := s[p]; {
	case c == '"' || c == '\'':
		for j := p + 1; j < len(s); j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == c {
				return p + 1, j
			}
		}
		return p + 1, len(s)
	case c == '\\' && p+1 < len(s) && s[p+1] == '"': // \"value\"
		if k := strings.Index(s[p+2:], `\"`); k >= 0 {
			return p + 2, p + 2 + k
		}
		return p + 2, len(s)
	case c == '{' || c == '[':
		return p, balancedEnd(s, p)
	}
	j := p
	for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '"' && s[j] != '\'' && s[j] != '&' &&
		!(json && (s[j] == ',' || s[j] == '}' || s[j] == ']')) {
		j++
	}
	return p, j
}

// balancedEnd is the index after the object or array starting at s[p],
// skipping quoted strings; the end of s when it is cut.
func balancedEnd(s string, p int) int {
	depth := 0
	for j := p; j < len(s); j++ {
		switch s[j] {
		case '"':
			for j++; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}
