package timeline

import (
	"fmt"
	"strings"
	"time"
)

// Markdown is the timeline as a Markdown document for an incident channel:
// the window, a table of events in time order with the call each cites,
// and what each detector could not read.
func Markdown(tl Timeline) string { return markdown(tl, true) }

// PublishedMarkdown is Markdown without the call column, for a diagnosis's
// report: a published answer names its checks, never Tool Call IDs.
func PublishedMarkdown(tl Timeline) string { return markdown(tl, false) }

func markdown(tl Timeline, calls bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Timeline %s – %s\n\n", tl.Window.Start.UTC().Format(time.RFC3339), tl.Window.End.UTC().Format(time.RFC3339))
	if len(tl.Events) == 0 {
		b.WriteString("No event found in the window.\n")
	} else {
		head, rule := "| time (UTC) | kind | service | what |", "| --- | --- | --- | --- |"
		if calls {
			head, rule = head+" call |", rule+" --- |"
		}
		b.WriteString(head + "\n" + rule + "\n")
		for _, e := range tl.Events {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |", e.At.UTC().Format("2006-01-02 15:04:05"), e.Kind, cell(orDash(e.Service)), cell(e.Summary))
			if calls {
				fmt.Fprintf(&b, " %s |", e.ToolCallID)
			}
			b.WriteString("\n")
		}
	}
	if gaps := Gaps(tl.Coverage); len(gaps) > 0 {
		b.WriteString("\n### Not fully read\n\n")
		for _, c := range gaps {
			fmt.Fprintf(&b, "- %s on %s: %s", c.Detector, c.Source, c.Status)
			if c.Note != "" {
				fmt.Fprintf(&b, " (%s)", c.Note)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Gaps are the coverage lines that did not read everything: what a reader
// must know before taking a missing event as "nothing happened".
func Gaps(cs []Coverage) []Coverage {
	var out []Coverage
	for _, c := range cs {
		if c.Status != Read {
			out = append(out, c)
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cellEscaper keeps a cell's text literal in Markdown: pipes would end
// the cell, angle brackets (a template's <id>) would read as HTML.
var cellEscaper = strings.NewReplacer("|", `\|`, "<", `\<`, ">", `\>`)

// cell keeps a table cell on one line and its text literal.
func cell(s string) string {
	return cellEscaper.Replace(strings.Join(strings.Fields(s), " "))
}
