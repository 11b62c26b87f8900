package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain line", "plain line"},
		// Breaks and tabs separate words: each becomes one space.
		{"a\nb\tc\u2028d\u2029e", "a b c d e"},
		// \r goes like every other control, so CRLF is one space.
		{"a\r\nb", "a b"},
		// Whole escape sequences go, leaving no "[31m" residue.
		{"a\x1b[31mb\x1b]0;t\x07c\x00d", "abcd"},
		{"file\u202egnp.exe", "filegnp.exe"},
		{"a\xffb", "a\uFFFDb"},
	} {
		got := Line(tc.in)
		if got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := Line(got); again != got {
			t.Errorf("not idempotent: %q -> %q", got, again)
		}
	}
}

func TestStrip(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"csi color", "\x1b[31mred\x1b[0m text", "red text"},
		{"csi cursor", "a\x1b[2J\x1b[1;1Hb", "ab"},
		{"osc title bel", "\x1b]0;pwned\x07after", "after"},
		{"osc hyperlink st", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"dcs", "x\x1bPq#0;2;0;0;0\x1b\\y", "xy"},
		{"two byte esc", "a\x1bcb\x1b7c", "abc"},
		{"charset esc", "a\x1b(Bb", "ab"},
		{"c0 controls", "a\x00b\x07c\x08d\re\x7f", "abcde"},
		{"8-bit csi", "a\u009b31mb", "ab"},
		{"c1 control", "a\u0085b", "ab"},
		{"bidi override", "file\u202egnp.exe", "filegnp.exe"},
		{"bidi isolates", "a\u2066b\u2067c\u2068d\u2069e", "abcde"},
		{"del in plain ascii", "abc\x7fdef", "abcdef"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"unicode kept", "支付超时 – ok ✓", "支付超时 – ok ✓"},
		{"trailing esc", "abc\x1b", "abc"},
		{"unterminated osc", "abc\x1b]0;title", "abc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Strip(tc.in)
			if got != tc.want {
				t.Fatalf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := Strip(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{"", "a\x1b[31mb", "\x1b]0;t\x07", "\u009b1m", "a\xffb", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Strip(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
		}
		for _, r := range out {
			if isControl(r) || r == 0x1b {
				t.Fatalf("control %U survived in %q", r, out)
			}
		}
		if again := Strip(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}

// FuzzLine: whatever a model writes, the line it becomes is
// valid UTF-8 with no control character, no line break and no bidi override.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"order-service ERROR since 1h", "\x1b[2J\x1b[H", "a\nb\r\nc", "\u202eevil", "\xff\xfe", "时间 since 5m", "a\u2028b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Line(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
		}
		for _, r := range out {
			if isControl(r) || r == 0x1b || r == '\n' || r == '\t' || r == '\u2028' || r == '\u2029' {
				t.Fatalf("control %U survived in %q", r, out)
			}
		}
	})
}

func BenchmarkStrip8KiB(b *testing.B) {
	s := strings.Repeat("plain log line with \x1b[31mcolor\x1b[0m and text\n", 200)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Strip(s)
	}
}
