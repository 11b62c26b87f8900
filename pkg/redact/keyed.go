package redact

import "strings"

// maxKnownKeys bounds the memo of key verdicts one Keyed keeps.
const maxKnownKeys = 4096

// maxKeyBytes bounds the length of a key Keyed judges; longer "keys" are
// prose, not names.
const maxKeyBytes = 128

// Keyed is the one scanner that masks a value by the name of its key
// (IsSecretKey, or a dotted prefix of it): the members of JSON, also
// truncated, embedded in other text or escaped inside a JSON string
// ({\"token\":\"x\"}), and with Pairs the key=value pairs of logfmt and query
// strings too. It remembers each key's verdict, because the texts of one
// answer repeat their keys; use one Keyed per answer, not concurrently.
type Keyed struct {
	pairs bool
	known map[string]bool
}

// NewKeyed returns a scanner for JSON members; pairs adds bare and quoted
// key=value pairs ('secret'='x', password=x, ?api_key=x&).
func NewKeyed(pairs bool) *Keyed {
	return &Keyed{pairs: pairs, known: map[string]bool{}}
}

// Secret reports whether key, or any dotted prefix of it, names a secret:
// "headers.Authorization" by its last part, "token.value" (a member of a
// secret object) by its first.
func (k *Keyed) Secret(key string) bool {
	if v, ok := k.known[key]; ok {
		return v
	}
	v := IsSecretKey(key)
	for i := 1; !v && i < len(key); i++ {
		if key[i] == '.' {
			v = IsSecretKey(key[:i])
		}
	}
	if len(k.known) < maxKnownKeys {
		k.known[strings.Clone(key)] = v
	}
	return v
}

// Field is the value to keep for a field named key: Marker when the key is
// Secret and the value is not empty, else the value with its secret members
// masked by Text.
func (k *Keyed) Field(key, value string) string {
	return field(k.Secret(key), value, k.Text)
}

// Text masks the value of every secret-named member (and pair) in s. A string
// value is masked inside its quotes (to the end of s when it does not end), an
// object, array or other JSON scalar becomes a string in its member's quote
// style, so valid JSON stays valid; a bare pair value is masked to the next
// delimiter. null and a value already masked are kept. "key: value" prose is
// left to String, which knows the header shapes.
//
// A masked scalar gains quotes, and in text that is not JSON such a new quote
// can open a name the pass before could not see (`"pass":0 pass":0`), so the
// passes repeat until nothing changes: each pass that changes the text masks
// a value more, and there are at most as many values as separators.
func (k *Keyed) Text(s string) string {
	if strings.IndexByte(s, ':') < 0 && (!k.pairs || strings.IndexByte(s, '=') < 0) {
		return s
	}
	for range strings.Count(s, ":") + strings.Count(s, "=") + 1 {
		out := k.pass(s)
		if out == s {
			break
		}
		s = out
	}
	return s
}

// pass is one left-to-right pass of Text.
func (k *Keyed) pass(s string) string {
	seps := ":"
	if k.pairs {
		seps = ":="
	}
	var b strings.Builder
	copied := 0
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], seps)
		if j < 0 {
			break
		}
		sep := i + j
		i = sep + 1
		key, quote, level := k.keyBefore(s, sep)
		if key == "" || !k.Secret(key) {
			continue
		}
		start, end, whole := valueAfter(s, sep, quote, level)
		if start == end || s[start:end] == Marker || (whole && s[start:end] == "null") {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[copied:start])
		if whole && s[sep] == ':' {
			q := strings.Repeat(`\`, level) + `"`
			b.WriteString(q + Marker + q)
		} else {
			b.WriteString(Marker)
		}
		copied = end
		i = max(i, end)
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// keyBefore returns the key that ends at s[sep], its quote (0 when bare) and
// its level: the backslashes before its closing quote, 1 for JSON held in a
// JSON string. A bare key counts only before '=' with nothing between.
func (k *Keyed) keyBefore(s string, sep int) (key string, quote byte, level int) {
	j := sep
	for j > 0 && isSpace(s[j-1]) {
		j--
	}
	if j > 0 && (s[j-1] == '"' || (k.pairs && s[j-1] == '\'')) {
		quote = s[j-1]
		closing := j - 1
		level = backslashRun(s, closing)
		open := strings.LastIndexByte(s[:closing], quote)
		if open < 0 || backslashRun(s, open) != level {
			return "", 0, 0
		}
		name := s[open+1 : closing-level]
		if len(name) > maxKeyBytes {
			return "", 0, 0
		}
		return name, quote, level
	}
	if s[sep] != '=' || j != sep {
		return "", 0, 0
	}
	start := j
	for start > 0 && j-start < maxKeyBytes && isKeyByte(s[start-1]) {
		start--
	}
	return s[start:j], 0, 0
}

// valueAfter returns the span of the value after the separator at s[sep]
// (after spaces when it is ':'): inside its quotes (whole false), or a whole
// object, array or bare word (whole true). An unterminated value runs to the
// end of s.
func valueAfter(s string, sep int, quote byte, level int) (start, end int, whole bool) {
	p := sep + 1
	if s[sep] == ':' {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
	}
	if p >= len(s) {
		return p, p, false
	}
	if r := backslashesAt(s, p); p+r < len(s) && s[p+r] == '"' && (r == level || quote != '"') {
		start = p + r + 1
		for q := start; q < len(s); q++ {
			if s[q] == '"' && closesString(backslashRun(s, q), r) {
				return start, q - r, false
			}
		}
		return start, len(s), false
	}
	if s[p] == '\'' {
		if q := strings.IndexByte(s[p+1:], '\''); q >= 0 {
			return p + 1, p + 1 + q, false
		}
		return p + 1, len(s), false
	}
	switch s[p] {
	case '{', '[':
		return p, balancedEnd(s, p, level), true
	}
	stops := ",}]\"\\ \t\r\n"
	if s[sep] == '=' {
		stops = "\"'&; \t\r\n"
	}
	end = p
	for end < len(s) && strings.IndexByte(stops, s[end]) < 0 {
		end++
	}
	return p, end, true
}

// balancedEnd is the index after the object or array starting at s[p],
// skipping the strings of its quote level; the end of s when it is cut.
func balancedEnd(s string, p, level int) int {
	depth, inString := 0, false
	for q := p; q < len(s); q++ {
		switch s[q] {
		case '"':
			if closesString(backslashRun(s, q), level) {
				inString = !inString
			}
		case '{', '[':
			if !inString {
				depth++
			}
		case '}', ']':
			if !inString {
				depth--
				if depth == 0 {
					return q + 1
				}
			}
		}
	}
	return len(s)
}

// closesString: at level 0 a quote after an even run of backslashes ends a
// string; at level n (escaped JSON) only a quote after exactly n does.
func closesString(run, level int) bool {
	if level == 0 {
		return run%2 == 0
	}
	return run == level
}

// backslashRun counts the backslashes right before s[i].
func backslashRun(s string, i int) int {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n
}

// backslashesAt counts the backslashes starting at s[i].
func backslashesAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '\\' {
		n++
	}
	return n
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '@'
}
