package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/superbiz/superbiz/internal/termsafe"
)

// TestRenderMarkdownConstructs pins the notty layout of every construct an
// answer uses, at width 80 (two columns of margin included).
func TestRenderMarkdownConstructs(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"heading", "# Title\n\ntext", "  Title\n  ═════\n\n  text"},
		{"subheadings", "## Two\n### Three\ntext", "  Two\n  ───\n\n  Three\n\n  text"},
		{"setext heading", "Title\n=====\n\ntext", "  Title\n  ═════\n\n  text"},
		{"paragraphs", "one\ntwo\n\nthree", "  one two\n\n  three"},
		{"strong label", "**Summary:** pool exhaustion", "  Summary: pool exhaustion"},
		{"emphasis", "*a* _b_ ***c*** __d__", "  a b c d"},
		{"underscore inside strong", "**EVIDENCE_FOUND**", "  EVIDENCE_FOUND"},
		{"code span", "run `superbiz doctor` now", "  run superbiz doctor now"},
		{"code span keeps escapes", "`a\\*b &amp;`", "  a\\*b &amp;"},
		{"escapes and entities", "\\*not em\\* &amp; &lt;b&gt; &#x41;", "  *not em* & <b> A"},
		{"bullets", "- one\n- two", "  • one\n  • two"},
		{"ordered", "1. one\n2. two", "  1. one\n  2. two"},
		{"ordered start", "3. three\n4. four", "  3. three\n  4. four"},
		{"ordered wide markers", "9. a\n10. b", "  9.  a\n  10. b"},
		{"loose list", "- one\n\n- two", "  • one\n\n  • two"},
		{"nested", "1. **FINDING** pool full\n   - Scope: logs\n   - Sources: `query_logs`\n2. next",
			"  1. FINDING pool full\n     • Scope: logs\n     • Sources: query_logs\n  2. next"},
		{"deeper nesting", "- a\n  - b\n    - c\n      1. d", "  • a\n    • b\n      • c\n        1. d"},
		{"empty item", "-\n- x", "  •\n  • x"},
		{"block quote", "> quoted\n>\n> more", "  │ quoted\n  │\n  │ more"},
		{"quote with list", "> - a\n> - b", "  │ • a\n  │ • b"},
		{"fenced code", "```go\nfunc f() {\n\treturn\n}\n```", "    func f() {\n        return\n    }"},
		{"indented code", "text\n\n    a  b\n      c", "  text\n\n    a  b\n      c"},
		{"code is not markdown", "```\n**x** # y\n```", "    **x** # y"},
		{"link", "see [the runbook](https://x.test/r)", "  see the runbook (https://x.test/r)"},
		{"link text is url", "[https://x.test](https://x.test)", "  https://x.test"},
		{"autolink", "<https://x.test/a>", "  https://x.test/a"},
		{"link without url", "[a]()", "  a"},
		{"unresolved reference", "see [evidence]", "  see [evidence]"},
		{"reference link", "[doc][1]\n\n[1]: https://x.test", "  doc (https://x.test)"},
		{"image", "![graph](https://x.test/g.png)", "  graph (https://x.test/g.png)"},
		{"thematic break", "a\n\n---\n\nb", "  a\n\n  " + strings.Repeat("─", 40) + "\n\n  b"},
		{"hard breaks", "one  \ntwo\\\nthree", "  one\n  two\n  three"},
		{"inline html dropped", "a <b>bold</b> <!-- c --> d", "  a bold  d"},
		{"html block", "<div>\ninside <i>it</i>\n</div>", "  inside it"},
		{"html comment block", "<!-- nothing -->\n\ntext", "  text"},
		{"empty", "", ""},
		{"blank", " \n\n \t\n", ""},
		{"chinese", "## 结论\n\n**摘要：** 连接池耗尽", "  结论\n  ────\n\n  摘要： 连接池耗尽"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := RenderMarkdown(c.md, 80, "notty")
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("RenderMarkdown(%q)\n got: %q\nwant: %q", c.md, got, c.want)
			}
		})
	}
}

// TestRenderMarkdownStyles: colour styles colour, notty never does, and
// both show the same characters.
func TestRenderMarkdownStyles(t *testing.T) {
	md := readSuccessAnswer(t) + "\n> q [l](https://x.test) *e*\n\n```\ncode\n```\n\n---\n"
	plain, err := RenderMarkdown(md, 80, "notty")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain, "\x1b") {
		t.Fatalf("notty output carries an escape sequence:\n%q", plain)
	}
	if def, err := RenderMarkdown(md, 80, ""); err != nil || def != plain {
		t.Fatalf(`style "" must be notty, got %v`, err)
	}
	for _, style := range []string{"dark", "light"} {
		out, err := RenderMarkdown(md, 80, style)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "\x1b[1m") || !strings.Contains(out, "\x1b[3m") || !strings.Contains(out, "38;5;") {
			t.Errorf("%s output lacks bold, italic or colour:\n%q", style, out)
		}
		if strings.Contains(out, "**") {
			t.Errorf("%s output leaves literal ** markers", style)
		}
		if got := ansi.Strip(out); got != plain {
			t.Errorf("%s output shows other text than notty:\n%s\n---\n%s", style, got, plain)
		}
	}
	dark, _ := RenderMarkdown(md, 80, "dark")
	light, _ := RenderMarkdown(md, 80, "light")
	if dark == light {
		t.Error("dark and light styles render the same colours")
	}
}

// TestRenderMarkdownWrap: lines fit the width, continuation lines of list
// items are aligned under the item text, and words are not cut when they fit.
func TestRenderMarkdownWrap(t *testing.T) {
	long := strings.Repeat("the pool was exhausted by one slow query ", 6)
	md := readSuccessAnswer(t) + "\n" + long + "\n\n- " + long + "\n  - " + long + "\n\n> " + long + "\n"
	for _, width := range []int{40, 100} {
		out, err := RenderMarkdown(md, width, "dark")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(out, "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: line of %d columns: %q", width, w, ansi.Strip(l))
			}
		}
		plain, _ := RenderMarkdown(md, width, "notty")
		lines := strings.Split(plain, "\n")
		var bullet bool
		for i, l := range lines {
			switch {
			case strings.HasPrefix(l, "  • the pool"):
				bullet = true
			case strings.HasPrefix(l, "    • the pool"):
				bullet = false
			case bullet && l != "":
				if !strings.HasPrefix(l, "    the") && !strings.HasPrefix(l, "    slow") && !strings.HasPrefix(l, "    ") {
					t.Errorf("width %d: continuation line %d not aligned under the item: %q", width, i, l)
				}
			}
			for _, w := range strings.Fields(l) {
				if strings.HasPrefix(w, "xhausted") || strings.HasPrefix(w, "uery") {
					t.Errorf("width %d: a word that fits was cut: %q", width, l)
				}
			}
		}
	}
	got, _ := RenderMarkdown("- "+strings.TrimSpace(long), 40, "notty")
	want := "  • the pool was exhausted by one slow\n" +
		"    query the pool was exhausted by one\n" +
		"    slow query the pool was exhausted by\n" +
		"    one slow query the pool was\n" +
		"    exhausted by one slow query the pool\n" +
		"    was exhausted by one slow query the\n" +
		"    pool was exhausted by one slow query"
	if got != want {
		t.Errorf("wrapped item:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenderMarkdownHostile: model-written Markdown cannot emit escapes,
// overflow the width with one word, or nest itself off the screen.
func TestRenderMarkdownHostile(t *testing.T) {
	cases := map[string]string{
		"raw escapes":      "# \x1b[2J\x1b]0;title\x07pwned\n\n**\x1b[31mred**\n\n- \x9b31m c1",
		"escaped entities": "&#27;[31m &#x1b;]8;;x&#7; &#0; &#x9b; &#x202e;",
		"code escapes":     "```\n\x1b[31m red\n```\n\n`\x1b[0m`",
		"link escapes":     "[a](https://x.test/&#27;[2J) <https://x.test/\x1b>",
		"long word":        strings.Repeat("x", 500) + " " + strings.Repeat("界", 300),
		"deep quotes":      strings.Repeat(">", 5000) + " deep",
		"deep lists":       strings.Repeat("- ", 5000) + "deep",
		"deep ordered":     strings.Repeat("1. ", 3000) + "deep",
		"indented nesting": deepIndentedList(200),
		"mixed nesting":    strings.Repeat("> - 1. ", 2000) + "x",
		"brackets":         strings.Repeat("[a](", 20000),
		"emphasis":         strings.Repeat("**a _b ", 10000),
	}
	for name, md := range cases {
		t.Run(name, func(t *testing.T) {
			for _, width := range []int{20, 40} {
				out, err := RenderMarkdown(md, width, "notty")
				if err != nil {
					t.Fatal(err)
				}
				checkNoControl(t, out)
				if strings.HasPrefix(name, "deep") || name == "long word" || strings.HasSuffix(name, "nesting") {
					for _, l := range strings.Split(out, "\n") {
						if w := ansi.StringWidth(l); w > width {
							t.Fatalf("width %d: line of %d columns: %q", width, w, l)
						}
					}
				}
				colour, err := RenderMarkdown(md, width, "dark")
				if err != nil {
					t.Fatal(err)
				}
				checkNoControl(t, ansi.Strip(colour))
			}
		})
	}
	out, _ := RenderMarkdown("&#27;[31m x", 40, "notty")
	if out != "  [31m x" {
		t.Errorf("a character reference to ESC must vanish, got %q", out)
	}
}

// TestRenderMarkdownGolden pins the success answer of package release, as
// the diagnose view shows it at 80 columns.
func TestRenderMarkdownGolden(t *testing.T) {
	out, err := RenderMarkdown(readSuccessAnswer(t), 80, "notty")
	if err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, []byte(out+"\n"))
}

// TestBoundSource: ordinary Markdown reaches the parser unchanged; only
// pathological lines are reshaped.
func TestBoundSource(t *testing.T) {
	ordinary := readSuccessAnswer(t) + "\n" + strings.Repeat("word ", 150) + "\n> > - 1. nested\n"
	if got := boundSource(ordinary); got != ordinary {
		t.Errorf("ordinary Markdown was changed:\n%q", got)
	}
	long := strings.Repeat("slow query ", 500)
	plainLong, _ := RenderMarkdown(long, 80, "notty")
	wrappedSame := strings.Join(strings.Fields(plainLong), " ")
	if wrappedSame != strings.TrimSpace(long) {
		t.Error("splitting a long paragraph line changed its text")
	}
	for _, l := range strings.Split(boundSource(long), "\n") {
		if len(l) > mdMaxLine {
			t.Errorf("line of %d bytes left", len(l))
		}
	}
	if got := limitMarkers(strings.Repeat("> ", 40) + "x"); strings.Count(got, ">") != mdMaxMarkers || !strings.HasSuffix(got, "x") {
		t.Errorf("limitMarkers kept %d markers: %q", strings.Count(got, ">"), got)
	}
}

func TestRenderMarkdownStyleErrors(t *testing.T) {
	for _, style := range []string{"dracula", "NOTTY", "ascii"} {
		if _, err := RenderMarkdown("x", 80, style); err == nil || !strings.Contains(err.Error(), style) {
			t.Errorf("style %q: want an error naming it, got %v", style, err)
		}
	}
}

// FuzzRenderMarkdown: no input panics the renderer, and notty output holds
// no control character but line breaks (colour output none once its own
// SGR sequences are stripped).
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{
		"# T\n\n**a** _b_ `c`\n\n1. x\n   - y\n\n> q\n\n```\ncode\n```\n",
		"\x1b[2J&#27;[31m\u202e<b>x</b>",
		"- - - 1. > > a\n\tb",
		"[a](<b> \"t\") ![i](u) <https://x>",
		"***a**b*c_d_",
	} {
		f.Add(s, 40, false)
		f.Add(s, 100, true)
	}
	f.Fuzz(func(t *testing.T, md string, width int, colour bool) {
		if len(md) > 1<<16 {
			return
		}
		style := MarkdownStyle(colour, true)
		out, err := RenderMarkdown(md, width%300, style)
		if err != nil {
			t.Fatal(err)
		}
		if !colour && strings.Contains(out, "\x1b") {
			t.Fatalf("escape in notty output: %q", out)
		}
		checkNoControl(t, ansi.Strip(out))
	})
}

// BenchmarkRenderMarkdownHostile measures 1 MB inputs shaped to hit the
// parser's worst cases; each must stay near linear.
func BenchmarkRenderMarkdownHostile(b *testing.B) {
	const mb = 1 << 20
	inputs := map[string]string{
		"quotes":   strings.Repeat(">", mb),
		"ordered":  strings.Repeat("1. ", mb/3),
		"indented": deepIndentedListBytes(mb),
		"brackets": strings.Repeat("[", mb),
		"links":    strings.Repeat("[a](", mb/4),
		"emphasis": strings.Repeat("*a", mb/2),
		"longword": strings.Repeat("x", mb),
		"escapes":  strings.Repeat("\x1b[31m&#27;", mb/10),
		"prose":    strings.Repeat(readSuccessAnswerB(b)+"\n", mb/1000),
	}
	for name, md := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(md)))
			for b.Loop() {
				if _, err := RenderMarkdown(md, 80, "dark"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func checkNoControl(t *testing.T, out string) {
	t.Helper()
	for _, r := range out {
		if r != '\n' && (unicode.IsControl(r) || termsafe.Strip(string(r)) != string(r)) {
			t.Fatalf("control character %U in output %q", r, out)
		}
	}
}

func deepIndentedList(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i*2) + "- level\n")
	}
	return b.String()
}

func deepIndentedListBytes(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strings.Repeat(" ", i*2) + "- x\n")
	}
	return b.String()
}

func readSuccessAnswer(t *testing.T) string {
	t.Helper()
	return readSuccessAnswerB(t)
}

// readSuccessAnswerB reads the success answer that package release pins,
// so this renderer is tested on what the product really prints.
func readSuccessAnswerB(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "pkg", "release", "testdata", "success.md.golden"))
	if err != nil {
		tb.Fatalf("read the release success answer: %v", err)
	}
	return string(b)
}
