package metrics

import "strings"

// maxExprSelectors bounds the selectors of one expression whose data a
// query_metrics call checks when the expression returns no series.
const maxExprSelectors = 8

// promqlWords are the PromQL keywords that are not metric names where a
// name could stand (binary operators, modifiers, literals).
var promqlWords = map[string]bool{
	"and": true, "or": true, "unless": true, "atan2": true, "bool": true, "offset": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true,
}

// labelListWords are the keywords followed by a parenthesised list of label
// names, which are not selectors.
var labelListWords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

// exprSelectors lists the vector selectors of a PromQL expression (a metric
// name with its matchers, or bare matchers) in order, each once: what an
// expression without series reads, whose data can be checked one by one.
// ok is false when the expression cannot be read that simply (an unclosed
// brace, bracket or string, no selector, or more than maxExprSelectors):
// its coverage then stays unknown.
func exprSelectors(expr string) (sels []string, ok bool) {
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			sels = append(sels, s)
		}
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		if end := skipClosed(expr, i); end != i {
			if end < 0 {
				return nil, false
			}
			if c == '{' {
				add(expr[i:end])
			}
			i = end
			continue
		}
		switch {
		case isNameStart(c):
			j := i + 1
			for j < len(expr) && isNameChar(expr[j]) {
				j++
			}
			name := expr[i:j]
			k := skipSpace(expr, j)
			switch {
			case labelListWords[strings.ToLower(name)] && k < len(expr) && expr[k] == '(':
				end := strings.IndexByte(expr[k:], ')')
				if end < 0 {
					return nil, false
				}
				i = k + end + 1
			case promqlWords[strings.ToLower(name)] || (k < len(expr) && expr[k] == '(') || groupsNext(expr, k):
				i = j // a keyword, or a function or aggregation's name
			case k < len(expr) && expr[k] == '{':
				end := skipBraces(expr, k)
				if end < 0 {
					return nil, false
				}
				add(name + expr[k:end])
				i = end
			default:
				add(name)
				i = j
			}
		case c >= '0' && c <= '9' || c == '.':
			// a number or a duration (offset 5m, @ 1609746000.5, 1e3, 0x1f)
			j := i + 1
			for j < len(expr) && (isNameChar(expr[j]) || expr[j] == '.') {
				j++
			}
			i = j
		default:
			i++
		}
	}
	if len(sels) == 0 || len(sels) > maxExprSelectors {
		return nil, false
	}
	return sels, true
}

// Selectors lists the vector selectors of a PromQL expression as
// query_metrics reads them to check an empty answer's coverage, so that
// `superbiz eval pack` can freeze the raw samples a query read; ok is false
// when the expression cannot be read that simply.
func Selectors(expr string) (sels []string, ok bool) { return exprSelectors(expr) }

// groupsNext says whether the word at k is by or without: the name before
// it is an aggregation's (sum by (job) (…)), not a metric.
func groupsNext(s string, k int) bool {
	j := k
	for j < len(s) && isNameChar(s[j]) {
		j++
	}
	w := strings.ToLower(s[k:j])
	return w == "by" || w == "without"
}

func isNameStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string literal starting at i
// (backquoted strings have no escapes), or -1 when it is not closed.
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return -1
}

// skipClosed skips what PromQL closes again, starting at i: a string, a
// range or subquery bracket, or label matchers in braces. It returns where
// what follows starts, -1 when it is not closed, and i itself when none
// starts there.
func skipClosed(expr string, i int) int {
	switch expr[i] {
	case '"', '\'', '`':
		return skipString(expr, i)
	case '[':
		if end := strings.IndexByte(expr[i:], ']'); end >= 0 {
			return i + end + 1
		}
		return -1
	case '{':
		return skipBraces(expr, i)
	}
	return i
}

// skipBraces returns the index after the matcher block starting at i,
// strings inside it skipped, or -1 when it is not closed.
func skipBraces(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"', '\'', '`':
			end := skipString(s, j)
			if end < 0 {
				return -1
			}
			j = end - 1
		case '}':
			return j + 1
		}
	}
	return -1
}
