package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// This file is the terminal Markdown renderer behind RenderMarkdown. It
// parses with the CommonMark core of goldmark (no extensions, no syntax
// highlighting: their package init alone cost more than the rest of the
// binary's start) and walks the tree, so the answer layout is ours and
// model-written text can only ever become plain characters.

const (
	// mdMargin is the left margin of every rendered line, as the TUI layout
	// (and glamour before) expects.
	mdMargin = "  "
	// mdMinWidth is the narrowest column that nested blocks are wrapped to.
	mdMinWidth = 10
	// mdMaxNest bounds the indentation of nested lists and quotes, so that
	// hostile nesting cannot push text off the screen or cost quadratic time.
	mdMaxNest = 12
	// mdTabStop is the tab width used to expand tabs in code blocks.
	mdTabStop = 4
	// mdMaxMarkers is the most container markers (">", "-", "1.") kept at
	// the start of one line: goldmark's block parser is quadratic in them.
	mdMaxMarkers = 32
	// mdMaxLine is the longest source line handed to goldmark: its inline
	// link parser rescans the rest of the line at every "](", so hostile
	// lines cost time quadratic in their length.
	mdMaxLine = 1024
)

// mdStyle holds the inline and block styles of one standard style. With
// color false every function returns its text unchanged, so "notty" output
// carries no escape sequence at all.
type mdStyle struct {
	color bool
	// plain is text for a file or a pipe: no margin, and headings as
	// their text (levels 1 and 2 underlined) instead of "## Text".
	plain                                    bool
	heading, strong, emph, code, link, url   lipgloss.Style
	quoteBar, codeBlock, rule, strongEmph    lipgloss.Style
	headingEmph, headingCode, headingLinkURL lipgloss.Style
}

// newMDStyle builds the style named by RenderMarkdown's style argument.
func newMDStyle(name string) (mdStyle, error) {
	var accent, code, link, url, muted string
	switch name {
	case "notty":
		return mdStyle{}, nil
	case "plain":
		return mdStyle{plain: true}, nil
	case "dark":
		accent, code, link, url, muted = "39", "203", "35", "30", "244"
	case "light":
		accent, code, link, url, muted = "27", "160", "36", "30", "242"
	default:
		return mdStyle{}, fmt.Errorf("render markdown: unknown style %q; use plain, notty, dark or light", name)
	}
	// 256-colour styles: the caller already decided that colour is wanted,
	// and rendering never probes the terminal (lipgloss v2 styles carry no
	// renderer; a screen brings the colours down to its terminal's profile).
	s := lipgloss.NewStyle()
	return mdStyle{
		color:          true,
		heading:        s.Bold(true).Foreground(lipgloss.Color(accent)),
		strong:         s.Bold(true),
		emph:           s.Italic(true),
		strongEmph:     s.Bold(true).Italic(true),
		code:           s.Foreground(lipgloss.Color(code)),
		link:           s.Foreground(lipgloss.Color(link)).Bold(true),
		url:            s.Foreground(lipgloss.Color(url)).Underline(true),
		quoteBar:       s.Foreground(lipgloss.Color(muted)),
		codeBlock:      s.Foreground(lipgloss.Color(muted)),
		rule:           s.Foreground(lipgloss.Color(muted)),
		headingEmph:    s.Bold(true).Italic(true).Foreground(lipgloss.Color(accent)),
		headingCode:    s.Bold(true).Foreground(lipgloss.Color(code)),
		headingLinkURL: s.Bold(true).Foreground(lipgloss.Color(url)),
	}, nil
}

// paint applies st to s in colour styles and returns s as is in notty.
func (m mdStyle) paint(st lipgloss.Style, s string) string {
	if !m.color || s == "" {
		return s
	}
	return st.Render(s)
}

// inlineFlags is the emphasis in force at an inline node.
type inlineFlags struct {
	heading, strong, emph, code, url bool
}

// pick chooses the style of a run of text under f.
func (m mdStyle) pick(f inlineFlags) lipgloss.Style {
	switch {
	case f.heading && f.code:
		return m.headingCode
	case f.heading && f.url:
		return m.headingLinkURL
	case f.heading && f.emph:
		return m.headingEmph
	case f.heading:
		return m.heading
	case f.code:
		return m.code
	case f.url:
		return m.url
	case f.strong && f.emph:
		return m.strongEmph
	case f.strong:
		return m.strong
	case f.emph:
		return m.emph
	}
	return lipgloss.Style{}
}

// mdRenderer walks one parsed document.
type mdRenderer struct {
	src []byte
	st  mdStyle
}

// renderMarkdownBlocks parses md (already cleaned of control characters)
// and lays it out at width columns, margin included.
func renderMarkdownBlocks(md string, width int, st mdStyle) string {
	src := []byte(boundSource(md))
	// goldmark's default CommonMark parser, built from package parser so
	// that its HTML renderer is not linked in.
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	doc := p.Parse(text.NewReader(src))
	r := mdRenderer{src: src, st: st}
	margin := mdMargin
	if st.plain {
		margin = ""
	}
	lines := r.container(doc, width-len(margin), false, 0)
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l != "" {
			b.WriteString(margin)
			b.WriteString(l)
		}
	}
	return b.String()
}

// plainHeading underlines a heading of level 1 (═) or 2 (─) as wide as
// its longest line, the way plain text marks one; deeper ones stay as they are.
func plainHeading(lines []string, level int) []string {
	if level > 2 || len(lines) == 0 {
		return lines
	}
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	rule := "─"
	if level == 1 {
		rule = "═"
	}
	return append(lines, strings.Repeat(rule, w))
}

// container lays out the block children of n one after the other, with a
// blank line between them unless tight (the items of a tight list).
func (r *mdRenderer) container(n ast.Node, width int, tight bool, depth int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width, depth)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// block lays out one block node as lines without the left margin.
func (r *mdRenderer) block(n ast.Node, width, depth int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		// A heading reads as one, not as its "##" markers: its text (bold
		// in the accent colour where there is colour), underlined at levels
		// 1 and 2 as plain text marks one.
		lines := wrapLines(r.inlines(n, inlineFlags{heading: true}), width)
		ruled := plainHeading(lines, n.Level)
		if len(ruled) > len(lines) {
			ruled[len(ruled)-1] = r.st.paint(r.st.rule, ruled[len(ruled)-1])
		}
		return ruled
	case *ast.Paragraph, *ast.TextBlock:
		return wrapLines(r.inlines(n, inlineFlags{}), width)
	case *ast.ThematicBreak:
		return []string{r.st.paint(r.st.rule, strings.Repeat("─", min(width, 40)))}
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		return r.codeBlock(n)
	case *ast.HTMLBlock:
		return r.htmlBlock(n, width)
	case *ast.Blockquote:
		inner, bar := width, r.st.paint(r.st.quoteBar, "│")
		nest := r.nests(width, 2, depth)
		if nest {
			inner -= 2
		}
		lines := r.container(n, inner, false, depth+1)
		if !nest {
			return lines
		}
		for i, l := range lines {
			if l == "" {
				lines[i] = bar
			} else {
				lines[i] = bar + " " + l
			}
		}
		return lines
	case *ast.List:
		return r.list(n, width, depth)
	}
	// A block kind the CommonMark core does not produce: keep its content.
	if n.Type() == ast.TypeBlock && n.FirstChild() != nil && n.FirstChild().Type() == ast.TypeInline {
		return wrapLines(r.inlines(n, inlineFlags{}), width)
	}
	return r.container(n, width, false, depth+1)
}

// nests reports whether a container at depth may indent its content by
// indent more columns: not past mdMaxNest levels nor below mdMinWidth.
func (r *mdRenderer) nests(width, indent, depth int) bool {
	return depth < mdMaxNest && width-indent >= mdMinWidth
}

// list lays out a bullet ("• ") or ordered ("1. ") list; continuation lines
// and nested blocks are aligned under the item's text.
func (r *mdRenderer) list(n *ast.List, width, depth int) []string {
	markers := []string{}
	for i, c := 0, n.FirstChild(); c != nil; i, c = i+1, c.NextSibling() {
		if n.IsOrdered() {
			markers = append(markers, strconv.Itoa(n.Start+i)+". ")
		} else {
			markers = append(markers, "• ")
		}
	}
	markerWidth := 0
	for _, m := range markers {
		markerWidth = max(markerWidth, ansi.StringWidth(m))
	}
	nest := r.nests(width, markerWidth, depth)
	inner := width
	if nest {
		inner -= markerWidth
	}
	var out []string
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.container(c, inner, n.IsTight, depth+1)
		if len(out) > 0 && !n.IsTight {
			out = append(out, "")
		}
		marker := markers[i] + strings.Repeat(" ", markerWidth-ansi.StringWidth(markers[i]))
		i++
		if len(lines) == 0 {
			if nest {
				out = append(out, strings.TrimRight(marker, " "))
			}
			continue
		}
		pad := strings.Repeat(" ", markerWidth)
		if !nest {
			// Past the nesting bound items are shown flat, without markers
			// that would push their text past the width.
			marker, pad = "", ""
		}
		for j, l := range lines {
			switch {
			case j == 0:
				out = append(out, marker+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, pad+l)
			}
		}
	}
	return out
}

// codeBlock keeps a code block's lines as written, indented, with tabs
// expanded and nothing wrapped or highlighted.
func (r *mdRenderer) codeBlock(n ast.Node) []string {
	segs := n.Lines()
	var out []string
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		line := strings.Repeat(" ", seg.Padding) + string(seg.Value(r.src))
		line = strings.TrimRight(expandTabs(strings.TrimRight(line, "\r\n")), " ")
		line = termsafe.Line(line)
		if line == "" {
			out = append(out, "")
			continue
		}
		out = append(out, "  "+r.st.paint(r.st.codeBlock, line))
	}
	// Blank lines at either end carry nothing.
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return out
}

// htmlBlock shows the text of a raw HTML block without its tags: nothing
// is interpreted, and the words a model put there are still read.
func (r *mdRenderer) htmlBlock(n *ast.HTMLBlock, width int) []string {
	var b strings.Builder
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(r.src))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(r.src))
	}
	words := strings.Fields(termsafe.Line(stripTags(b.String())))
	if len(words) == 0 {
		return nil
	}
	return wrapLines(strings.Join(words, " "), width)
}

// stripTags removes HTML comments and tags from s, keeping the text
// between them.
func stripTags(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		end := ">"
		if strings.HasPrefix(s, "<!--") {
			end = "-->"
		}
		j := strings.Index(s, end)
		if j < 0 {
			return b.String()
		}
		b.WriteByte(' ')
		s = s[j+len(end):]
	}
}

// inlines renders the inline children of n as one styled string in which
// hard line breaks are "\n".
func (r *mdRenderer) inlines(n ast.Node, f inlineFlags) string {
	var b strings.Builder
	r.inlineChildren(&b, n, f)
	return b.String()
}

func (r *mdRenderer) inlineChildren(b *strings.Builder, n ast.Node, f inlineFlags) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(b, c, f)
	}
}

// inline renders one inline node into b.
func (r *mdRenderer) inline(b *strings.Builder, n ast.Node, f inlineFlags) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Value(r.src)
		if !f.code && !n.IsRaw() {
			v = resolveText(v)
		}
		b.WriteString(r.st.paint(r.st.pick(f), termsafe.Line(string(v))))
		switch {
		case n.HardLineBreak():
			b.WriteByte('\n')
		case n.SoftLineBreak():
			b.WriteByte(' ')
		}
	case *ast.String:
		v := n.Value
		if !n.IsCode() && !n.IsRaw() {
			v = resolveText(v)
		}
		b.WriteString(r.st.paint(r.st.pick(f), termsafe.Line(string(v))))
	case *ast.CodeSpan:
		f.code = true
		r.inlineChildren(b, n, f)
	case *ast.Emphasis:
		if n.Level >= 2 {
			f.strong = true
		} else {
			f.emph = true
		}
		r.inlineChildren(b, n, f)
	case *ast.Link:
		r.linkLike(b, n, string(n.Destination), f)
	case *ast.Image:
		r.linkLike(b, n, string(n.Destination), f)
	case *ast.AutoLink:
		f.url = true
		b.WriteString(r.st.paint(r.st.pick(f), termsafe.Line(string(n.Label(r.src)))))
	case *ast.RawHTML:
		// Tags are dropped; the text around them stays.
	default:
		r.inlineChildren(b, n, f)
	}
}

// linkLike renders a link or image as its text followed by " (url)", or
// just the url when the text is empty or the url itself.
func (r *mdRenderer) linkLike(b *strings.Builder, n ast.Node, dest string, f inlineFlags) {
	dest = termsafe.Line(string(resolveText([]byte(dest))))
	label := strings.TrimSpace(r.plainText(n))
	uf := f
	uf.url = true
	if label == "" || label == dest {
		if label == "" {
			label = dest
		}
		b.WriteString(r.st.paint(r.st.pick(uf), label))
		return
	}
	ls := r.st.link
	if f.heading {
		ls = r.st.heading
	}
	b.WriteString(r.st.paint(ls, label))
	if dest != "" {
		b.WriteString(" (" + r.st.paint(r.st.pick(uf), dest) + ")")
	}
}

// plainText is the unstyled text of n's inline children, for comparing a
// link's text with its destination.
func (r *mdRenderer) plainText(n ast.Node) string {
	var b strings.Builder
	plain := mdRenderer{src: r.src}
	plain.inlineChildren(&b, n, inlineFlags{})
	return b.String()
}

// resolveText applies CommonMark's backslash escapes and character
// references to a text run. A reference may name a control character, so
// the result is cleaned again by the caller.
func resolveText(v []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
}

// wrapLines wraps styled text at width columns (words first, long words
// broken) and drops trailing spaces.
func wrapLines(s string, width int) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	lines := strings.Split(ansi.Wrap(s, max(width, mdMinWidth), ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// expandTabs replaces tabs with spaces to the next multiple of mdTabStop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, c := range s {
		if c == '\t' {
			n := mdTabStop - col%mdTabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col++
	}
	return b.String()
}

// boundSource reshapes pathological source lines so that parsing stays
// near linear: at most mdMaxMarkers container markers open on one line,
// and lines longer than mdMaxLine are split. A split is made at a space
// followed by a letter where there is one, which a paragraph reads as the
// same text (a soft line break is a space and a letter starts no block).
func boundSource(md string) string {
	var b strings.Builder
	b.Grow(len(md) + len(md)/mdMaxLine + 1)
	for line := range strings.Lines(md) {
		line = limitMarkers(line)
		for len(line) > mdMaxLine {
			cut := splitPoint(line)
			b.WriteString(line[:cut])
			b.WriteByte('\n')
			line = strings.TrimLeft(line[cut:], " ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// splitPoint picks where to break a line longer than mdMaxLine: after the
// last space before the limit that is followed by a letter, else at the
// rune boundary nearest below the limit.
func splitPoint(line string) int {
	for i := mdMaxLine - 1; i > mdMaxLine/2; i-- {
		if line[i] == ' ' {
			if r, _ := utf8.DecodeRuneInString(line[i+1:]); unicode.IsLetter(r) {
				return i + 1
			}
		}
	}
	i := mdMaxLine
	for i > 0 && !utf8.RuneStart(line[i]) {
		i--
	}
	if i == 0 {
		return mdMaxLine
	}
	return i
}

// limitMarkers drops the container markers of a line beyond the first
// mdMaxMarkers, keeping the text after them.
func limitMarkers(line string) string {
	i, n, cut := 0, 0, -1
	for {
		j := i
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		k := markerEnd(line, j)
		if k < 0 {
			break
		}
		if n++; n == mdMaxMarkers+1 {
			cut = i
		}
		i = k
	}
	if cut < 0 {
		return line
	}
	return line[:cut] + line[i:]
}

// markerEnd returns the index just after a block-quote or list marker
// starting at j, or -1 when none starts there.
func markerEnd(line string, j int) int {
	if j >= len(line) {
		return -1
	}
	spaceAfter := func(k int) bool {
		return k == len(line) || line[k] == ' ' || line[k] == '\t' || line[k] == '\n' || line[k] == '\r'
	}
	switch c := line[j]; {
	case c == '>':
		return j + 1
	case c == '-' || c == '*' || c == '+':
		if spaceAfter(j + 1) {
			return j + 1
		}
	case c >= '0' && c <= '9':
		k := j
		for k < len(line) && k-j < 9 && line[k] >= '0' && line[k] <= '9' {
			k++
		}
		if k < len(line) && (line[k] == '.' || line[k] == ')') && spaceAfter(k+1) {
			return k + 1
		}
	}
	return -1
}
