package logs

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The contains scan. Before any parsing, the text is searched for the
// contains word whose rarest byte is rarest: IndexByte on that byte (both
// cases for a letter), then a second rare byte of the word at its offset,
// then the whole word ASCII-case-blind; only the entries around a match
// are parsed. A mapped file's range is read in chunks for it (scanPart),
// not searched in the mapping.

// logByteOrder lists the bytes of log text from the most to the least
// common, counted over the format fixtures under testdata/logs/formats
// (each file weighted alike); a byte absent from it is rarer than all.
// It breaks ties of a sample's counts, and decides when the sample is
// silent (a word whose bytes the sample does not hold at all).
const logByteOrder = " 0e\"1tr:oani2.sc4dl3-ph7mu6/5,g\n8fT9bvRkE][SxOyICNw_MPAF{}()=LHDGU\t|qWB+Zj#V@z;\rKY\\*J'X$>Q<?~%`!"

// staticRank is how common c (or its other case, for a letter) is in log
// text by logByteOrder: 0 for a byte absent from it, higher for more common.
func staticRank(c byte) int {
	rank := func(c byte) int {
		if i := strings.IndexByte(logByteOrder, c); i >= 0 {
			return len(logByteOrder) - i
		}
		return 0
	}
	return max(rank(c), rank(upper(c)))
}

// upper is c's upper case for an ASCII lower-case letter, else c.
func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// prefilter is what the contains scan searches for: the rarest byte of the
// word (lo and up, its two cases for a letter) at offset off, and a second
// rare byte at offset off2 (lower case) checked before the whole word.
type prefilter struct {
	word   []byte
	off    int
	lo, up byte
	off2   int
	fold2  byte // 0x20 when word[off2] is a letter, so d|fold2 is its lower case
}

// byteCount is how often a word's byte occurs: in the sample (both cases),
// ties broken by staticRank.
type byteCount struct{ n, rank int }

func (a byteCount) less(b byteCount) bool {
	return a.n < b.n || a.n == b.n && a.rank < b.rank
}

// choosePrefilter picks, among the words, the byte that occurs least in
// sample (ties to the rarer in logByteOrder) and its word's second rarest
// byte at another offset; words whose letters could change bytes under
// Unicode case folding are skipped (nil when no word is left).
func choosePrefilter(words [][]byte, sample []byte) *prefilter {
	var freq [256]int
	for _, c := range sample {
		freq[c]++
	}
	count := func(c byte) byteCount {
		n := freq[c]
		if u := upper(c); u != c {
			n += freq[u]
		}
		return byteCount{n, staticRank(c)}
	}
	var best *prefilter
	var bestN byteCount
	for _, w := range words {
		if !foldSafe(w) || len(w) == 0 {
			continue
		}
		off := 0
		for i := 1; i < len(w); i++ {
			if count(w[i]).less(count(w[off])) {
				off = i
			}
		}
		if best != nil && !count(w[off]).less(bestN) {
			continue
		}
		off2 := off
		for i := range w {
			if i != off && (off2 == off || count(w[i]).less(count(w[off2]))) {
				off2 = i
			}
		}
		pf := &prefilter{word: w, off: off, lo: w[off], up: upper(w[off]), off2: off2}
		if w[off2] >= 'a' && w[off2] <= 'z' {
			pf.fold2 = 'a' - 'A'
		}
		best, bestN = pf, count(w[off])
	}
	return best
}

// match reports whether the word starts at b[0] (b holds at least the
// word's length): the second byte first, then the whole word.
func (pf *prefilter) match(b []byte) bool {
	return b[pf.off2]|pf.fold2 == pf.word[pf.off2] && matchFoldAt(b, pf.word)
}

// upWindow bounds how far ahead indexIn looks for the upper case of a
// letter at a time: an absent one costs a search of upWindow per call,
// not of the rest of the block.
const upWindow = 8 << 10

// indexIn is the first start ≥ from of the word in blk whose word ends by
// len(blk), or -1; stop (when given) can end the search between chunks.
// For a letter, the next upper-case byte is found once per upWindow and
// kept until the search passes it, so a lower-case candidate costs one
// IndexByte.
func (pf *prefilter) indexIn(blk []byte, from int, stop func() bool) int {
	last := len(blk) - len(pf.word)
	if from > last {
		return -1
	}
	lim := last + pf.off + 1 // candidate bytes lie in [from+off, lim)
	i := from + pf.off
	// the first up in [i, upEnd) is at upAt; upAt == upEnd when none
	upAt, upEnd := lim, lim
	// one case: the search for lo spans the block and asks stop itself;
	// two: stop is asked here every skipChunk, the searches being shorter
	loStop := stop
	if pf.up != pf.lo {
		upAt, upEnd, loStop = i, i, nil
	}
	for asked := i; i < lim; {
		if upEnd <= i {
			if i-asked >= skipChunk {
				if stop != nil && stop() {
					return -1
				}
				asked = i
			}
			upEnd = min(lim, i+upWindow)
			upAt = indexChunked(blk, i, upEnd, pf.up, nil)
		}
		c := indexChunked(blk, i, upAt, pf.lo, loStop)
		if c >= upAt {
			if upAt == upEnd { // neither case before upEnd
				i = upEnd
				continue
			}
			c = upAt
			upAt = indexChunked(blk, c+1, upEnd, pf.up, nil)
		}
		if st := c - pf.off; pf.match(blk[st:]) {
			return st
		}
		i = c + 1
	}
	return -1
}

// nextWord is the first start p ≥ from of the prefilter's word in data with
// p+len(word) ≤ hi (hi when none, or when the call has ended).
func (s *scanner) nextWord(data []byte, from, hi int) int {
	if p := s.pf.indexIn(data[:hi], from, s.stopped); p >= 0 {
		return p
	}
	return hi
}

// foldSafe reports whether w's non-ASCII runes have no case, so their bytes
// are the same in any case of the text.
func foldSafe(w []byte) bool {
	for len(w) > 0 {
		r, n := utf8.DecodeRune(w)
		w = w[n:]
		if r >= utf8.RuneSelf && (unicode.ToUpper(r) != r || unicode.ToLower(r) != r || unicode.ToTitle(r) != r) {
			return false
		}
	}
	return true
}

// lowerWord lower-cases a filter word the way matching compares it.
func lowerWord(w string) []byte {
	return bytes.ToLower([]byte(w))
}

// lowerWords lower-cases the filter words of a query (lowerWord), nil for none.
func lowerWords(ws []string) [][]byte {
	var out [][]byte
	for _, w := range ws {
		out = append(out, lowerWord(w))
	}
	return out
}

// matchFoldAt reports whether b starts with w (already lower case), ASCII
// letters compared without case.
func matchFoldAt(b, w []byte) bool {
	if len(b) < len(w) {
		return false
	}
	for i, c := range w {
		d := b[i]
		if d >= 'A' && d <= 'Z' {
			d += 'a' - 'A'
		}
		if d != c {
			return false
		}
	}
	return true
}

// containsFold reports whether hay contains w (lower case) ignoring case.
// The next byte of each case of w's first byte is kept until the search
// passes it, so a hay of many MiB (a long line searched whole) costs a
// pass, never a search to its end per candidate.
func containsFold(hay, w []byte) bool {
	if len(w) == 0 {
		return true
	}
	if !foldSafe(w) {
		return bytes.Contains(bytes.ToLower(hay), w)
	}
	c := w[0]
	up := upper(c)
	last := len(hay) - len(w)
	next := func(b byte, from int) int {
		if k := bytes.IndexByte(hay[from:last+1], b); k >= 0 {
			return from + k
		}
		return last + 1
	}
	ci, ui := -1, -1 // the next c and up at or after i (last+1: none)
	for i := 0; i <= last; {
		if ci < i {
			ci = next(c, i)
		}
		if up != c && ui < i {
			ui = next(up, i)
		}
		k := ci
		if up != c {
			k = min(k, ui)
		}
		if k > last {
			return false
		}
		if matchFoldAt(hay[k:], w) {
			return true
		}
		i = k + 1
	}
	return false
}
