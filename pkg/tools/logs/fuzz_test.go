package logs

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

func fuzzParser(f *testing.F, fm format) {
	f.Fuzz(func(t *testing.T, line []byte) {
		tc := timeCtx{loc: time.UTC, year: 2026}
		var r record
		if parseLine(fm, line, &tc, &r) != lineCont {
			// everything a parsed line yields must clean to valid, control-free text
			for _, b := range [][]byte{r.msg, r.service} {
				s := cleanText(b, false)
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 from %q", line)
				}
				for _, c := range []byte(s) {
					if c < 0x20 || c == 0x7f {
						t.Fatalf("control byte %#x left in %q", c, s)
					}
				}
			}
			_ = template(cleanText(r.msg, true))
		}
	})
}

func FuzzParseJSON(f *testing.F)   { fuzzParser(f, fmtJSON) }
func FuzzParseLogfmt(f *testing.F) { fuzzParser(f, fmtLogfmt) }
func FuzzParseText(f *testing.F)   { fuzzParser(f, fmtText) }

func FuzzInput(f *testing.F) {
	tool, err := New([]Source{{Name: "app", Paths: []string{"/nonexistent"}, MaxWindow: 6 * time.Hour}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := tool.Canonical(json.RawMessage(in))
		if err != nil {
			return
		}
		again, err := tool.Canonical(c.Input)
		if err != nil || string(again.Input) != string(c.Input) {
			t.Fatalf("canonical of %q not stable: %s then %s (%v)", in, c.Input, again.Input, err)
		}
	})
}
