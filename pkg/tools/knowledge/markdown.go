package knowledge

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/superbiz/superbiz/internal/textclip"
)

// MaxSectionBytes bounds the body of one indexed section, so a search result
// and its snippet stay small however long a runbook chapter is.
const MaxSectionBytes = 4096

// maxAnchorBytes bounds an anchor (and so a doc_id) built from a long heading.
const maxAnchorBytes = 96

// titleSep joins the heading path of a section's title.
const titleSep = " › "

// Section is one searchable unit of a runbook: the text under one heading
// (levels 1–3), or one bounded part of it.
type Section struct {
	// Anchor is the GitHub-style heading slug, unique within the file.
	Anchor string
	// Title is the heading path, e.g. "Redis timeout › Diagnosis › Slow log".
	Title string
	// Body is the section text without its heading line.
	Body string
}

// Page is what Split returns for one file: its sections and the text of
// its front matter (indexed as metadata, never returned as a body).
type Page struct {
	Sections    []Section
	FrontMatter string
}

// Split cuts a Markdown file into heading sections. name is the file's base
// name, used as the top of the heading path when the file has no level-1
// heading. Front matter is stripped, fenced code blocks never start a section,
// empty sections are dropped, and bodies longer than MaxSectionBytes are split
// into parts whose anchors end in "-part2", "-part3", ….
func Split(name string, content string) Page {
	content = strings.TrimPrefix(content, "\ufeff")
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ToValidUTF8(content, "\uFFFD")
	name = strings.ToValidUTF8(name, "\uFFFD")
	front, rest := splitFrontMatter(content)

	type raw struct {
		level int
		text  string
		minor []string // level 4–6 headings inside the body
		body  []string
	}
	var raws []raw
	cur := raw{}
	lines := strings.Split(rest, "\n")
	heads := headingLines(lines)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if h, ok := heads[i]; ok {
			if h.level <= 3 {
				raws = append(raws, cur)
				cur = raw{level: h.level, text: h.text}
				i += h.span - 1
				continue
			}
			cur.minor = append(cur.minor, h.text)
		}
		cur.body = append(cur.body, line)
	}
	raws = append(raws, cur)

	doc := Page{FrontMatter: strings.TrimSpace(front)}
	// Anchors are numbered like GitHub does: every heading, empty or not and
	// whatever its level, reserves its slug in document order.
	used := map[string]bool{}
	unique := func(base string) string {
		a := base
		for n := 1; used[a]; n++ {
			a = base + "-" + strconv.Itoa(n)
		}
		used[a] = true
		return a
	}
	root := strings.TrimSuffix(name, pathExt(name))
	var path [4]string // heading text by level 1..3
	for _, r := range raws {
		body := strings.TrimSpace(strings.Join(r.body, "\n"))
		var anchor string
		if r.level == 0 {
			if body == "" {
				continue
			}
			anchor = unique("top")
		} else {
			path[r.level] = r.text
			for l := r.level + 1; l <= 3; l++ {
				path[l] = ""
			}
			anchor = unique(Slug(r.text))
		}
		for _, h := range r.minor {
			unique(Slug(h))
		}
		if body == "" {
			continue
		}
		title := headingTitle(root, path, r.level)
		parts := splitBody(body, MaxSectionBytes)
		for p, part := range parts {
			s := Section{Anchor: anchor, Title: title, Body: part}
			if p > 0 {
				s.Anchor = unique(anchor + "-part" + strconv.Itoa(p+1))
				s.Title = title + " (" + strconv.Itoa(p+1) + "/" + strconv.Itoa(len(parts)) + ")"
			}
			doc.Sections = append(doc.Sections, s)
		}
	}
	return doc
}

// headingTitle builds "H1 › H2 › H3" for a section at level; the file name
// stands in for a missing level-1 heading.
func headingTitle(root string, path [4]string, level int) string {
	parts := make([]string, 0, 3)
	if path[1] == "" || level == 0 {
		parts = append(parts, root)
	}
	for l := 1; l <= level; l++ {
		if path[l] != "" {
			parts = append(parts, path[l])
		}
	}
	return strings.Join(parts, titleSep)
}

// pathExt returns the extension of a slash or OS path's last element.
func pathExt(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || strings.ContainsAny(name[i:], "/\\") {
		return ""
	}
	return name[i:]
}

// splitFrontMatter removes a leading "---" YAML block closed by "---" or "...".
// An unclosed block is not front matter and is kept as text.
func splitFrontMatter(s string) (front, rest string) {
	if !strings.HasPrefix(s, "---\n") {
		return "", s
	}
	body := s[len("---\n"):]
	off := 0
	for off <= len(body) {
		end := strings.IndexByte(body[off:], '\n')
		line := body[off:]
		if end >= 0 {
			line = body[off : off+end]
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			next := len(body)
			if end >= 0 {
				next = off + end + 1
			}
			return body[:off], body[next:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", s
}

// heading is a heading of the document: its level, its text as written
// (an ATX heading without its #s, a setext heading's lines joined by a
// space), and the number of lines it takes (with a setext underline).
type heading struct {
	level int
	text  string
	span  int
}

// maxLeadingMarkers bounds the run of container markers and spaces at the
// start of a line handed to goldmark, whose block parser is quadratic in
// them; a line nested that deep starts no section anyway.
const maxLeadingMarkers = 128

// headingLines finds the document's top-level headings, ATX ("## Text") and
// setext ("Text" over "===" or "---"), with goldmark's CommonMark block
// parser, so a "#" line in a fenced code block or an HTML block starts
// nothing. It returns them by the index of their first line.
func headingLines(lines []string) map[int]heading {
	src := make([]byte, 0, len(lines)*16)
	starts := make([]int, len(lines))
	for i, line := range lines {
		starts[i] = len(src)
		src = append(src, boundMarkers(line)...)
		src = append(src, '\n')
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	doc := p.Parse(text.NewReader(src))
	out := map[int]heading{}
	next := 0 // the first line not yet taken by a block
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, isHeading := n.(*ast.Heading)
		if !isHeading {
			if last := lastLine(n, lineOf); last >= next {
				next = last + 1
			}
			continue
		}
		segs := h.Lines()
		if segs.Len() == 0 {
			// An empty ATX heading ("##") has no text to locate it by.
			for i := next; i < len(lines); i++ {
				if level, t, ok := atxHeading(lines[i]); ok && level == h.Level && t == "" {
					out[i] = heading{level: level, span: 1}
					next = i + 1
					break
				}
			}
			continue
		}
		first := lineOf(segs.At(0).Start)
		if level, t, ok := atxHeading(lines[first]); ok && level == h.Level {
			out[first] = heading{level: level, text: t, span: 1}
			next = first + 1
			continue
		}
		last := lineOf(segs.At(segs.Len() - 1).Start)
		words := make([]string, 0, last-first+1)
		for _, l := range lines[first : last+1] {
			words = append(words, strings.TrimSpace(l))
		}
		span := min(last+2, len(lines)) - first // the text and its underline
		out[first] = heading{level: h.Level, text: strings.Join(words, " "), span: span}
		next = first + span
	}
	return out
}

// lastLine is the last source line of any block in n's subtree, -1 for none.
func lastLine(n ast.Node, lineOf func(int) int) int {
	last := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		if segs := c.Lines(); segs.Len() > 0 {
			last = max(last, lineOf(segs.At(segs.Len()-1).Start))
		}
		return ast.WalkContinue, nil
	})
	return last
}

// boundMarkers cuts a line whose leading run of container markers and
// spaces is longer than maxLeadingMarkers to that run's bound.
func boundMarkers(line string) string {
	n := 0
	for n < len(line) && strings.IndexByte("> \t-*+.)0123456789", line[n]) >= 0 {
		n++
	}
	if n > maxLeadingMarkers {
		return line[:maxLeadingMarkers]
	}
	return line
}

// atxHeading parses "## Text ##" (up to three leading spaces) into its level
// and text.
func atxHeading(line string) (int, string, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return 0, "", false
	}
	level := 0
	for level < len(trimmed) && trimmed[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest := trimmed[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	text := strings.TrimSpace(rest)
	// A closing sequence of #s preceded by a space is not part of the text.
	if t := strings.TrimRight(text, "#"); t != text && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		text = strings.TrimSpace(t)
	}
	return level, text, true
}

// Slug is the GitHub-style anchor of a heading: lower case, letters (CJK
// included), digits, '-' and '_' kept, spaces turned into '-', everything
// else dropped; bounded in length, never empty.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ' || r == '\t':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			if b.Len()+utf8.RuneLen(r) > maxAnchorBytes {
				return finishSlug(b.String())
			}
			b.WriteRune(r)
		}
		if b.Len() >= maxAnchorBytes {
			break
		}
	}
	return finishSlug(b.String())
}

// finishSlug bounds a slug and gives a heading without any letter a name.
func finishSlug(s string) string {
	if len(s) > maxAnchorBytes {
		s = textclip.BytePrefix(s, maxAnchorBytes)
	}
	if strings.Trim(s, "-") == "" {
		return "section"
	}
	return s
}

// splitBody cuts text into parts of at most max bytes, preferring paragraph
// breaks, then line breaks, then spaces, and never splitting a rune.
func splitBody(text string, max int) []string {
	var parts []string
	for len(text) > max {
		cut := -1
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := strings.LastIndex(text[:max], sep); i > max/4 {
				cut = i
				break
			}
		}
		if cut < 0 {
			cut = len(textclip.BytePrefix(text, max))
			if cut == 0 { // max smaller than one rune: take the rune anyway
				_, cut = utf8.DecodeRuneInString(text)
			}
		}
		if part := strings.TrimSpace(text[:cut]); part != "" {
			parts = append(parts, part)
		}
		text = strings.TrimSpace(text[cut:])
	}
	if text != "" {
		parts = append(parts, text)
	}
	return parts
}
