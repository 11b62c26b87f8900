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
	// parts are the words of a CamelCase identifier ("CrashLoopBackOff":
	// crash, loop, back, off): the identifier matches as a whole or by them.
	parts []string
	// alts are the term's synonyms (querySynonyms): the term matches when
	// the section holds it or any of them.
	alts []string
}

// IdentParts splits a CamelCase identifier into its lower-case words:
// "KubePodCrashLooping" → kube pod crash looping, "HTTPServerDown" → http
// server down (an upper-case run ends before the capital that starts the
// next word). A word without a case change gives nil. snake_case and
// kebab-case need no help: the tokenizer already cuts at '_' and '-'.
func IdentParts(word string) []string {
	rs := []rune(word)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(cur)
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			parts = append(parts, strings.ToLower(string(rs[start:i])))
			start = i
		}
	}
	if start == 0 {
		return nil
	}
	return append(parts, strings.ToLower(string(rs[start:])))
}

// identWords lists the CamelCase parts of every identifier in text, space
// separated, so "Alert KubePodCrashLooping" adds "kube pod crash looping"
// to what the index holds of a title or a file name.
func identWords(text string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWord(r) || isCJK(r) }) {
		for _, p := range IdentParts(w) {
			b.WriteString(p)
			b.WriteByte(' ')
		}
	}
	return b.String()
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
			w := word.String()
			t := term{text: strings.ToLower(w)}
			for _, p := range IdentParts(w) {
				if !queryStopwords[p] {
					t.parts = append(t.parts, p)
				}
			}
			add(t)
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
	// A query without Chinese keeps to the scripts it is written in: an
	// English question asks for English runbooks first, while a Chinese one
	// also reaches runbooks written in English.
	zh := strings.IndexFunc(query, isCJK) >= 0
	for i := range kept {
		if kept[i].prefix {
			continue
		}
		for _, a := range querySynonyms().of(kept[i].text) {
			if zh || strings.IndexFunc(a, isCJK) < 0 {
				kept[i].alts = append(kept[i].alts, a)
			}
		}
	}
	return kept
}

// BuildQuery turns free text into an FTS5 MATCH expression that cannot be a
// syntax error: every term is a double-quoted string (quotes doubled), terms
// (and the words of CamelCase identifiers) are joined with OR, and the only
// operator ever emitted besides OR is the prefix star after a closing quote.
// It returns "" when the text has no searchable term.
func BuildQuery(query string) string {
	return anyTerm(queryTerms(query))
}

// quote writes one FTS5 string (quotes doubled).
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// anyTerm is the MATCH expression of sections holding any term or any word
// of an identifier.
func anyTerm(terms []term) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		quote(&b, t.text)
		if t.prefix {
			b.WriteByte('*')
		}
		for _, a := range t.alts {
			b.WriteString(" OR ")
			quote(&b, a)
		}
		for _, p := range t.parts {
			b.WriteString(" OR ")
			quote(&b, p)
		}
	}
	return b.String()
}

// everyTerm is the MATCH expression of sections holding every term, an
// identifier counting when it is there whole or by all of its words:
// "kubepodcrashlooping" OR ("kube" AND "pod" AND "crash" AND "looping").
func everyTerm(terms []term) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		group := len(t.parts) > 0 || len(t.alts) > 0
		if group {
			b.WriteByte('(')
		}
		quote(&b, t.text)
		if t.prefix {
			b.WriteByte('*')
		}
		for _, a := range t.alts {
			b.WriteString(" OR ")
			quote(&b, a)
		}
		if len(t.parts) == 0 && group {
			b.WriteByte(')')
		}
		if len(t.parts) > 0 {
			b.WriteString(" OR (")
			for j, p := range t.parts {
				if j > 0 {
					b.WriteString(" AND ")
				}
				quote(&b, p)
			}
			b.WriteString("))")
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
		for _, w := range append(append([]string{t.text}, t.parts...), t.alts...) {
			if utf8.RuneCountInString(w) == 1 && !t.prefix && !isCJK([]rune(w)[0]) {
				continue // a one-letter word would light up everywhere
			}
			out = append(out, w)
		}
	}
	return out
}

// atom is one concept of a query for counting coverage: it is covered when
// the section holds one of its forms (roughStem'd), or, for a prefix atom (a
// lone CJK character), a token starting with it, or one of its synonyms
// (alts); a section holding the query's own form ranks before one holding
// only a synonym.
type atom struct {
	forms  []string
	alts   []string
	prefix bool
}

// roughStem approximates the Porter stemmer of the index closely enough to
// count which query words a ranked section holds: lower case, and a plural
// or -ing/-ed ending dropped ("looping", "loops" → loop). Only the order of
// candidates FTS5 already matched depends on it.
func roughStem(w string) string {
	w = strings.ToLower(w)
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 && !strings.HasSuffix(w, "ss") {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// roughTokens cuts text into the index's tokens, roughly: roughStem'd words,
// and CJK runs as their bigrams (a lone character as itself).
func roughTokens(text string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.Fields(Segment(text)) {
		for _, w := range strings.FieldsFunc(f, func(r rune) bool { return !isWord(r) }) {
			out[roughStem(w)] = true
		}
	}
	return out
}

// covered counts the atoms held by the tokens (n) and, of those, the ones
// held in the query's own form rather than by a synonym (literal).
func covered(tokens map[string]bool, atoms []atom) (n, literal int) {
	for _, a := range atoms {
		switch {
		case a.prefix:
			for tok := range tokens {
				if strings.HasPrefix(tok, a.forms[0]) {
					n++
					literal++
					break
				}
			}
		case anyIn(tokens, a.forms):
			n++
			literal++
		case anyIn(tokens, a.alts):
			n++
		}
	}
	return n, literal
}

// anyIn reports whether one of words is among the tokens.
func anyIn(tokens map[string]bool, words []string) bool {
	for _, w := range words {
		if tokens[w] {
			return true
		}
	}
	return false
}
