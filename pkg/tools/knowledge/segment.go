package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryTerms bounds the OR-terms of one FTS query so a long query stays fast.
const maxQueryTerms = 64

// isCJK reports whether r belongs to a script written without spaces between
// words, which the unicode61 tokenizer would otherwise swallow as one token.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// isWord reports whether unicode61 (default categories L*, N*, Co) keeps r in a token.
func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// Segment prepares text for the unicode61 FTS column: every run of CJK
// characters is replaced by its overlapping bigrams ("支付超时" becomes
// " 支付 付超 超时 "), a lone CJK character stays a one-character token, and
// everything else is left for the tokenizer.
func Segment(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		b.WriteByte(' ')
		if len(run) == 1 {
			b.WriteRune(run[0])
		}
		for i := 0; i+1 < len(run); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(run[i])
			b.WriteRune(run[i+1])
		}
		b.WriteByte(' ')
		run = run[:0]
	}
	for _, r := range text {
		if isCJK(r) {
			run = append(run, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// term is one token of a query as the FTS index knows it.
type term struct {
	text string
	// prefix is set for a lone CJK character: it matches every bigram that
	// starts with it.
	prefix bool
}

// queryStopwords are English words that carry no meaning in a runbook search;
// they are dropped when the query has any other term.
var queryStopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"by": true, "do": true, "does": true, "for": true, "from": true, "how": true,
	"i": true, "in": true, "is": true, "it": true, "my": true, "of": true, "on": true,
	"or": true, "our": true, "the": true, "to": true, "was": true, "we": true,
	"what": true, "when": true, "why": true, "with": true, "this": true, "that": true,
}

// queryTerms cuts a user query into the index's tokens: lower-cased words,
// CJK bigrams (or a prefix for a lone CJK character), de-duplicated, in
// order, stopwords dropped, at most maxQueryTerms.
func queryTerms(query string) []term {
	var terms []term
	seen := map[string]bool{}
	add := func(t term) {
		key := t.text
		if t.prefix {
			key += "*"
		}
		if t.text == "" || seen[key] || len(terms) >= maxQueryTerms*2 {
			return
		}
		seen[key] = true
		terms = append(terms, t)
	}
	var word strings.Builder
	var run []rune
	flushWord := func() {
		if word.Len() > 0 {
			add(term{text: strings.ToLower(word.String())})
			word.Reset()
		}
	}
	flushRun := func() {
		if len(run) == 1 {
			add(term{text: string(run), prefix: true})
		}
		for i := 0; i+1 < len(run); i++ {
			add(term{text: string(run[i : i+2])})
		}
		run = run[:0]
	}
	for _, r := range query {
		switch {
		case isCJK(r):
			flushWord()
			run = append(run, r)
		case isWord(r):
			flushRun()
			word.WriteRune(r)
		default:
			flushWord()
			flushRun()
		}
	}
	flushWord()
	flushRun()

	kept := terms[:0:0]
	for _, t := range terms {
		if !queryStopwords[t.text] {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		kept = terms
	}
	if len(kept) > maxQueryTerms {
		kept = kept[:maxQueryTerms]
	}
	return kept
}

// BuildQuery turns free text into an FTS5 MATCH expression that cannot be a
// syntax error: every term is a double-quoted string (quotes doubled), terms
// are joined with OR, and the only operator ever emitted besides OR is the
// prefix star after a closing quote. It returns "" when the text has no
// searchable term.
func BuildQuery(query string) string {
	return joinTerms(queryTerms(query), " OR ")
}

// joinTerms quotes every term and joins them with an FTS5 operator.
func joinTerms(terms []term, op string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(op)
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t.text, `"`, `""`))
		b.WriteByte('"')
		if t.prefix {
			b.WriteByte('*')
		}
	}
	return b.String()
}

// matchTerms are the strings the snippet looks for in the original text:
// the query's words and CJK bigrams (lone characters included).
func matchTerms(query string) []string {
	terms := queryTerms(query)
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if utf8.RuneCountInString(t.text) == 1 && !t.prefix && !isCJK([]rune(t.text)[0]) {
			continue // a one-letter word would light up everywhere
		}
		out = append(out, t.text)
	}
	return out
}
