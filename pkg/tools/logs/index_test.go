package logs

import (
	"bytes"
	"strings"
	"testing"
)

// indexEither finds the first of two bytes wherever they fall against its
// blocks, matching a plain search for both.
func TestIndexEither(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name     string
		data     string
		from, hi int // hi < 0: len(data)
	}{
		{"neither", pad(3 * eitherBlock), 0, -1},
		{"a only", pad(100) + "k" + pad(10), 0, -1},
		{"b only", pad(100) + "K" + pad(10), 0, -1},
		{"b before a in one block", pad(10) + "K" + pad(5) + "k", 0, -1},
		{"a before b in one block", pad(10) + "k" + pad(5) + "K", 0, -1},
		{"a in the first block, b in a later one", pad(eitherBlock-1) + "k" + pad(eitherBlock) + "K", 0, -1},
		{"b in the first block, a in a later one", pad(5) + "K" + pad(2*eitherBlock) + "k", 0, -1},
		{"only in a later block", pad(2*eitherBlock+7) + "K" + "k", 0, -1},
		{"on the block boundary", pad(eitherBlock) + "k", 0, -1},
		{"from skips an earlier one", "k" + pad(10) + "K", 1, -1},
		{"hi hides a later one", pad(10) + "K", 0, 10},
		{"from past a block start", pad(eitherBlock+3) + "Kk", eitherBlock, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.data)
			hi := c.hi
			if hi < 0 {
				hi = len(data)
			}
			want := hi
			if k := bytes.IndexAny(data[c.from:hi], "kK"); k >= 0 {
				want = c.from + k
			}
			if got := indexEither(data, c.from, hi, 'k', 'K', nil); got != want {
				t.Errorf("indexEither = %d, want %d", got, want)
			}
		})
	}
}

// A stop that says the call has ended ends a long search at hi.
func TestIndexEitherStops(t *testing.T) {
	data := make([]byte, 2*skipChunk+10)
	data[len(data)-1] = 'k'
	asked := 0
	stop := func() bool { asked++; return true }
	if got := indexEither(data, 0, len(data), 'k', 'K', stop); got != len(data) || asked != 1 {
		t.Errorf("indexEither = %d after %d stop checks, want %d after 1", got, asked, len(data))
	}
	if got := indexEither(data, 0, len(data), 'k', 'K', func() bool { return false }); got != len(data)-1 {
		t.Errorf("without a stop: %d, want %d", got, len(data)-1)
	}
}
