package cmd

import (
	"encoding/json"
	"fmt"
	"io"

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

// writeMaskedJSON prints v as writeJSON does, through the egress door: its
// strings masked and stripped of control characters, for output built from
// files a user hands over (eval compare's results files).
func writeMaskedJSON(w io.Writer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	doc, err := egress.MaskJSON(raw)
	if err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return writeJSON(w, doc.Shown())
}

// writeJSON prints v as one indented JSON document followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return nil
}
