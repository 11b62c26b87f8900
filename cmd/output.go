package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/egress"
)

// outputFormat is the value of -o/--output, validated when the flag is
// parsed so a typo is a usage error before any work starts.
type outputFormat string

// The output formats of docs/SPEC.md#output.
const (
	outputText     outputFormat = "text"
	outputMarkdown outputFormat = "markdown"
	outputJSON     outputFormat = "json"
	// outputWide is text with every column whole; only `runs` takes it.
	outputWide outputFormat = "wide"
)

// takesWide reports whether the command (its path) prints a listing that
// has a wide layout: only `runs` does.
func takesWide(path string) bool {
	switch path {
	case "superbiz runs", "superbiz runs list", "superbiz runs show":
		return true
	}
	return false
}

func (o *outputFormat) String() string { return string(*o) }

// Set implements pflag.Value.
func (o *outputFormat) Set(v string) error {
	switch f := outputFormat(v); f {
	case outputText, outputMarkdown, outputJSON, outputWide:
		*o = f
		return nil
	}
	return fmt.Errorf("must be one of text, markdown, json, wide (runs only)")
}

// Type implements pflag.Value; it is the placeholder shown in help.
func (o *outputFormat) Type() string { return "format" }

// writeMaskedJSON prints v as writeJSON does, its strings also stripped of
// control characters, for output built from files a user hands over (eval
// compare's results files).
func writeMaskedJSON(w egress.Writer, v any) error {
	doc, err := maskedJSON(v)
	if err != nil {
		return err
	}
	return w.JSON(doc.Shown())
}

// writeJSON prints v as one indented JSON document followed by a newline,
// through the egress door: every string masked, every secret-named member's
// value replaced.
func writeJSON(w egress.Writer, v any) error {
	doc, err := maskedJSON(v)
	if err != nil {
		return err
	}
	return w.JSON(doc)
}

// maskedJSON encodes v (HTML characters as they are) and passes it through
// the egress policy.
func maskedJSON(v any) (egress.JSON, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return egress.JSON{}, fmt.Errorf("write JSON output: %w", err)
	}
	doc, err := egress.MaskJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if err != nil {
		return egress.JSON{}, fmt.Errorf("write JSON output: %w", err)
	}
	return doc, nil
}

// printPage prints output a command rendered from masked pieces (a page, a
// table): the whole of it passes the policy once more, so what two pieces
// make together is masked too.
func printPage(w egress.Writer, s string) error { return w.Print(egress.Mask(s)) }

// printTextTable prints a table aligned for a terminal (writeTextTable)
// through the door.
func printTextTable(w egress.Writer, t table) error {
	var b strings.Builder
	_ = writeTextTable(&b, t) // a strings.Builder never fails
	return printPage(w, b.String())
}

// printMarkdownTable prints a table as Markdown (writeMarkdownTable)
// through the door.
func printMarkdownTable(w egress.Writer, t table) error {
	var b strings.Builder
	_ = writeMarkdownTable(&b, t) // a strings.Builder never fails
	return printPage(w, b.String())
}
