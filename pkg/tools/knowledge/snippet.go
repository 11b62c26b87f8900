package knowledge

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
)

// SnippetBytes bounds a snippet (UTF-8 bytes, ellipses included) so a
// top-8 answer stays far below the observation limit.
const SnippetBytes = 300

// maxFieldBytes bounds doc_id, title and source in a result.
const maxFieldBytes = 256

// snippetLead is how much text before the best match a snippet shows.
const snippetLead = 60

// maxHitsPerTerm bounds the occurrences considered per term.
const maxHitsPerTerm = 32

// Snippet returns at most max bytes of body around the place where the most
// distinct terms occur close together (the start when none occurs), with
// control and format characters removed, whitespace collapsed, and "…"
// where text was cut. Terms match ASCII case-insensitively.
func Snippet(body string, terms []string, max int) string {
	if max < 4*len(textclip.Marker) {
		return ""
	}
	lower := asciiLower(body)
	type hit struct{ pos, term int }
	var hits []hit
	for i, t := range terms {
		t = asciiLower(t)
		if t == "" {
			continue
		}
		for off, n := 0, 0; n < maxHitsPerTerm; n++ {
			j := strings.Index(lower[off:], t)
			if j < 0 {
				break
			}
			hits = append(hits, hit{off + j, i})
			off += j + len(t)
		}
	}
	start := 0
	if len(hits) > 0 {
		// Slide a window of the snippet's width over the hits (in text order)
		// and keep the one that holds the most distinct terms.
		sort.Slice(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
		width := max - snippetLead
		count := make([]int, len(terms))
		best, bestN, distinct, j := 0, 0, 0, 0
		for i, h := range hits {
			for j < len(hits) && hits[j].pos < h.pos+width {
				if count[hits[j].term] == 0 {
					distinct++
				}
				count[hits[j].term]++
				j++
			}
			if distinct > bestN {
				best, bestN = h.pos, distinct
			}
			count[hits[i].term]--
			if count[hits[i].term] == 0 {
				distinct--
			}
		}
		start = max0(best - snippetLead)
		// Near the end, show a full window rather than a short tail.
		start = min(start, max0(len(body)-max+len(textclip.Marker)))
		for start > 0 && !utf8.RuneStart(body[start]) {
			start--
		}
		// Begin at a word boundary when one is near.
		if start > 0 {
			if i := strings.IndexAny(body[start:best], " \n\t"); i >= 0 {
				start += i + 1
			}
		}
	}
	// Clean a generous window, then cut to the byte bound.
	window := body[start:]
	window = textclip.BytePrefix(window, 3*max)
	text := clean(window, 0)
	prefix := ""
	if start > 0 && text != "" {
		prefix = textclip.Marker
	}
	limit := max - len(prefix)
	if len(text) > limit || len(window) < len(body)-start {
		text = textclip.BytePrefix(text, limit-len(textclip.Marker))
		text = strings.TrimRight(text, " ") + textclip.Marker
	}
	return prefix + text
}

// clean removes control and format characters (bidi overrides, zero-width
// marks) from text shown to the model, turns whitespace runs into one space,
// and bounds the result to max bytes when max > 0.
func clean(s string, max int) string {
	// Whole escape sequences go first, so no "[31m" residue is left behind.
	s = termsafe.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == utf8.RuneError:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if max > len(textclip.Marker) && len(out) > max {
		out = textclip.BytePrefix(out, max-len(textclip.Marker)) + textclip.Marker
	}
	return out
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}
