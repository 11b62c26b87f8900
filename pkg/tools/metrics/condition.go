package metrics

import (
	"strconv"
	"strings"
)

// Watched is the series an alerting rule's expression holds against its
// threshold, to watch over time: the expression returns series only while
// the alert's condition holds, so its own values say nothing before the
// alert. It is the left operand of the top-level comparison
// (`p99_seconds > 2` watches `p99_seconds`), the right one when the left is
// a number (`0.5 < ratio`), of the first condition of a top-level and, or
// or unless, parentheses around the whole removed; the expression itself
// when it compares nothing. ok is false when the expression cannot be read
// that simply (an unclosed string, bracket, brace or parenthesis, nothing
// before or after the comparison).
func Watched(expr string) (string, bool) {
	part := strings.TrimSpace(expr)
	for range 8 { // parentheses around the whole, a few deep
		part = dropComments(part)
		ops, ok := topLevel(part)
		if !ok || part == "" {
			return "", false
		}
		if ops.set >= 0 {
			part = strings.TrimSpace(part[:ops.set])
			continue
		}
		if ops.cmp >= 0 {
			left := strings.TrimSpace(part[:ops.cmp])
			right := stripModifiers(strings.TrimSpace(part[ops.cmp+ops.cmpLen:]))
			if isNumber(left) {
				left = right
			}
			if left == "" || isNumber(left) {
				return "", false
			}
			part = left
			continue
		}
		if inner, ok := unwrap(part); ok {
			part = inner
			continue
		}
		return part, true
	}
	return part, true
}

// topOps are where an expression's first top-level set operator and
// comparison start (-1: none), and how long the comparison's operator is.
type topOps struct{ set, cmp, cmpLen int }

// topLevel finds the first top-level (outside parentheses, brackets,
// braces, strings and comments) and/or/unless and comparison of expr.
func topLevel(expr string) (topOps, bool) {
	ops := topOps{set: -1, cmp: -1}
	depth := 0
	for i := 0; i < len(expr); {
		c := expr[i]
		if end := skipClosed(expr, i); end != i {
			if end < 0 {
				return ops, false
			}
			i = end
			continue
		}
		switch {
		case c == '#':
			end := strings.IndexByte(expr[i:], '\n')
			if end < 0 {
				return ops, true
			}
			i += end + 1
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return ops, false
			}
		case depth > 0:
		case isNameStart(c):
			j := i + 1
			for j < len(expr) && isNameChar(expr[j]) {
				j++
			}
			if w := strings.ToLower(expr[i:j]); ops.set < 0 && (w == "and" || w == "or" || w == "unless") {
				ops.set = i
			}
			i = j
			continue
		case ops.cmp < 0 && (c == '>' || c == '<' || c == '=' || c == '!'):
			if i+1 < len(expr) && expr[i+1] == '=' {
				ops.cmp, ops.cmpLen = i, 2
			} else if c == '>' || c == '<' {
				ops.cmp, ops.cmpLen = i, 1
			}
		}
		i++
	}
	return ops, depth == 0
}

// stripModifiers removes what may follow a comparison operator before its
// operand: bool, on/ignoring (labels), group_left/group_right (labels).
func stripModifiers(s string) string {
	for {
		j := 0
		for j < len(s) && isNameChar(s[j]) {
			j++
		}
		w := strings.ToLower(s[:j])
		switch {
		case w == "bool":
			s = strings.TrimSpace(s[j:])
		case labelListWords[w] && w != "by" && w != "without":
			rest := strings.TrimSpace(s[j:])
			if strings.HasPrefix(rest, "(") {
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return s
				}
				rest = strings.TrimSpace(rest[end+1:])
			}
			s = rest
		default:
			return s
		}
	}
}

// dropComments removes the comment lines at the head of expr.
func dropComments(expr string) string {
	for strings.HasPrefix(expr, "#") {
		_, rest, _ := strings.Cut(expr, "\n")
		expr = strings.TrimSpace(rest)
	}
	return expr
}

// unwrap is expr without the parentheses around the whole of it.
func unwrap(expr string) (string, bool) {
	if !strings.HasPrefix(expr, "(") || !strings.HasSuffix(expr, ")") {
		return "", false
	}
	inner := expr[1 : len(expr)-1]
	if _, ok := topLevel(inner); !ok {
		return "", false // "(a) + (b)": the first parenthesis closes early
	}
	return strings.TrimSpace(inner), true
}

// isNumber says whether s is a PromQL number literal.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}
