// Package tui draws a run for a person at a terminal: the live diagnose view,
// the interactive chat, and the plain progress lines used when stderr is not
// a terminal. It consumes the typed run events of package harness only; the
// engine never imports it.
package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// NarrowWidth is the terminal width below which the views drop bars and
// boxes and print plain lines, so that nothing wraps into garbage.
const NarrowWidth = 60

// defaultWidth is assumed until the terminal reports its size.
const defaultWidth = 80

// comma formats n with thousands separators, the way budgets are read.
func comma(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// clock formats a remaining duration to the second ("4m32s", "0s").
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Truncate(time.Second).String()
}

// seconds formats an elapsed duration with one decimal ("2.3s").
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// MarkdownStyle picks the Markdown style for a terminal: "notty"
// (no colour, no escape sequences) when colour is off (NO_COLOR, or not a
// terminal), else "dark" or "light". The caller decides, so rendering never
// probes the terminal.
func MarkdownStyle(color, darkBackground bool) string {
	switch {
	case !color:
		return "notty"
	case darkBackground:
		return "dark"
	default:
		return "light"
	}
}

// askBackground is the command that asks the terminal for its background
// colour when the Markdown style is a colour one (the answer comes as a
// tea.BackgroundColorMsg, read by backgroundStyle); nil for "notty", where
// nothing depends on it. bubbletea sends no query without an input to read
// the answer from.
func askBackground(style string) tea.Cmd {
	if !colourStyle(style) {
		return nil
	}
	return tea.RequestBackgroundColor
}

// backgroundStyle is the Markdown style after the terminal said its
// background: a colour style becomes "dark" or "light" as the answer says;
// "notty" stays as it is.
func backgroundStyle(style string, bg tea.BackgroundColorMsg) string {
	if !colourStyle(style) {
		return style
	}
	return MarkdownStyle(true, bg.IsDark())
}

// colourStyle says whether style is one of MarkdownStyle's colour styles.
func colourStyle(style string) bool {
	return style == MarkdownStyle(true, true) || style == MarkdownStyle(true, false)
}

// PlainStyle is RenderMarkdown's style for text read outside a terminal
// (`-o text` to a file or a pipe): no escape sequence, no Markdown mark, no
// margin.
const PlainStyle = "plain"

// RenderMarkdown renders an answer for the terminal in a fixed style (see
// MarkdownStyle and PlainStyle; "" means "notty") wrapped at width columns,
// a two-column left margin included (none in PlainStyle). Control characters in md are removed first and
// every piece of text is cleaned again after Markdown unescaping: the answer
// may quote model output, and "notty" output holds no escape sequence.
func RenderMarkdown(md string, width int, style string) (string, error) {
	if style == "" {
		style = "notty"
	}
	if style == "auto" {
		return "", fmt.Errorf("render markdown: style %q probes the terminal; pass a fixed style such as notty, dark or light", style)
	}
	st, err := newMDStyle(style)
	if err != nil {
		return "", err
	}
	if width < 20 {
		width = 20
	}
	out := renderMarkdownBlocks(termsafe.Strip(md), width, st)
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n"), nil
}

// exitLine is the last line of a finished run: exit code, release outcome,
// stop reason (as docs/SPEC.md#stop-reasons names them) and run ID.
func exitLine(code int, outcome, reason, runID string) string {
	line := statusWords("exit "+strconv.Itoa(code), outcome, reason)
	if runID = termsafe.Line(runID); runID != "" {
		line += " · run " + runID
	}
	return line
}

// statusWords joins a run's status words with " · ", each once: a stop
// reason that repeats the lifecycle (COMPLETED · COMPLETED) is said once.
func statusWords(words ...string) string {
	var parts []string
	for _, w := range words {
		if w = termsafe.Line(w); w != "" && !slices.Contains(parts, w) {
			parts = append(parts, w)
		}
	}
	return strings.Join(parts, " · ")
}

// endMark is ✔ for a run that ended well and ✗ for one that FAILED or was
// CANCELLED (by its lifecycle or its release outcome).
func endMark(lifecycle, outcome string) string {
	switch {
	case lifecycle == string(runrecord.Failed), lifecycle == string(runrecord.Cancelled),
		outcome == string(runrecord.OutcomeFailed), outcome == string(runrecord.OutcomeCancelled):
		return "✗"
	}
	return "✔"
}
