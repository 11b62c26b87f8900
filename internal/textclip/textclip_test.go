package textclip

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcde", 5, "abcde"},
		{"abcdef", 5, "ab…"},
		{"超时超时", 8, "超…"},
		{"héllo wörld", 6, "hé…"},
		// Below the marker's own size the cut goes unmarked, within n.
		{"abcdef", 2, "ab"},
		{"超时", 2, ""},
		{"abc", 0, ""},
	} {
		got := Bytes(tc.in, tc.n)
		if got != tc.want || len(got) > max(tc.n, 0) {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestBytePrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 4, "abcd"},
		{"超时", 4, "超"},
		{"超时", 2, ""},
		{"abc", -1, ""},
	} {
		if got := BytePrefix(tc.in, tc.n); got != tc.want {
			t.Errorf("BytePrefix(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer query text", 10, "a longer…"},
		// Columns, not code points: each of these fills two columns.
		{"支付超时结算五零四", 5, "支付…"},
		{"支付超时", 8, "支付超时"},
		{"支付超时", 7, "支付超…"},
		{"abc", 0, ""},
	} {
		got := Width(tc.in, tc.n)
		if got != tc.want || ansi.StringWidth(got) > max(tc.n, 0) {
			t.Errorf("Width(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// FuzzBytes: whatever the text, the cut is valid UTF-8 when the text was,
// within the bound, and a prefix of the text (but for the marker).
func FuzzBytes(f *testing.F) {
	for _, s := range []string{"", "abc", "超时超时", "héllo wörld", "\xff\xfe"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		got := Bytes(s, n)
		if len(got) > max(n, 0) {
			t.Fatalf("Bytes(%q, %d) = %q: over the bound", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Bytes(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
		if !strings.HasPrefix(s, strings.TrimSuffix(got, Marker)) {
			t.Fatalf("Bytes(%q, %d) = %q: not a prefix", s, n, got)
		}
	})
}
