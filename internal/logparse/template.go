package logparse

import (
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
)

// maxTemplate bounds one pattern's template text.
const maxTemplate = 200

// Template turns a message into its pattern by masking the parts that vary
// between occurrences of the same event: numbers (<num>), durations (<dur>),
// IPv4 addresses (<ip>), UUIDs (<uuid>), hex ids (<hex>), e-mail addresses
// (<email>), other tokens carrying digits (<id>) and quoted strings (<str>).
// Only the first line of a message counts, so stack traces group by their head.
func Template(msg string) string {
	if k := strings.IndexByte(msg, '\n'); k >= 0 {
		msg = msg[:k]
	}
	var sb strings.Builder
	sb.Grow(len(msg))
	for i := 0; i < len(msg) && sb.Len() < maxTemplate; {
		c := msg[i]
		if c == '"' || c == '\'' || c == '`' {
			if k := strings.IndexByte(msg[i+1:], c); k >= 0 {
				sb.WriteByte(c)
				sb.WriteString("<str>")
				sb.WriteByte(c)
				i += k + 2
				continue
			}
		}
		if isDelim(c) || c == '"' || c == '\'' || c == '`' { // delimiter or unmatched quote
			sb.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(msg) && !isDelim(msg[j]) && msg[j] != '"' && msg[j] != '\'' && msg[j] != '`' {
			j++
		}
		sb.WriteString(maskToken(msg[i:j]))
		i = j
	}
	return textclip.Bytes(sb.String(), maxTemplate)
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '=', ':', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>', '/', '\\', '|', '&', '?', '#', '+', '*', '!':
		return true
	}
	return false
}

// maskToken returns the mask for a variable token, or the token itself.
func maskToken(t string) string {
	digits, hexOnly, letters := 0, true, 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
			letters++
		case (c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z'):
			letters++
			hexOnly = false
		default:
			hexOnly = false
		}
	}
	if strings.IndexByte(t, '@') > 0 && strings.IndexByte(t, '.') > 0 {
		return "<email>"
	}
	if digits == 0 {
		if hexOnly && len(t) >= 16 { // long hex id made only of a-f
			return "<hex>"
		}
		return t
	}
	switch {
	case isNumber(t):
		return "<num>"
	case isDuration(t):
		return "<dur>"
	case isIPv4(t):
		return "<ip>"
	case isUUID(t):
		return "<uuid>"
	case len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && isHex(t[2:]):
		return "<hex>"
	case hexOnly && len(t) >= 8:
		return "<hex>"
	}
	return "<id>"
}

func isNumber(t string) bool {
	if t[0] == '-' || t[0] == '+' {
		t = t[1:]
	}
	t = strings.TrimSuffix(t, "%")
	if t == "" {
		return false
	}
	dot := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '.' && !dot && i > 0 && i < len(t)-1 {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDuration accepts Go-style durations and "150ms", "3.2s", "2m", "1h30m", "15us".
func isDuration(t string) bool {
	i := 0
	units := 0
	for i < len(t) {
		s := i
		for i < len(t) && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.') {
			i++
		}
		if i == s {
			return false
		}
		u := i
		for i < len(t) && ((t[i] >= 'a' && t[i] <= 'z') || t[i] == 'µ') {
			i++
		}
		switch t[u:i] {
		case "ns", "us", "µs", "ms", "s", "m", "h", "d", "sec", "secs", "min", "mins":
			units++
		default:
			return false
		}
	}
	return units > 0
}

func isIPv4(t string) bool {
	parts := 0
	for _, p := range strings.Split(t, ".") {
		if len(p) == 0 || len(p) > 3 || !isNumber(p) {
			return false
		}
		parts++
	}
	return parts == 4
}

func isUUID(t string) bool {
	if len(t) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if t[i] != '-' {
				return false
			}
			continue
		}
		if !isHexByte(t[i]) {
			return false
		}
	}
	return true
}

func isHex(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isHexByte(t[i]) {
			return false
		}
	}
	return true
}

func isHexByte(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
