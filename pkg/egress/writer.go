package egress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Writer is the door for printed output (stdout, stderr, progress lines): it
// writes only a Text or a JSON, so a string read at run time cannot reach a
// terminal or a pipe without passing the policy. It holds the stream it
// writes to and never hands it out; Stream gives a writer that masks every
// write, for a library that writes by itself. The zero value discards.
type Writer struct {
	w io.Writer
	p Policy // what the policy adds to every text and JSON written
}

// NewWriter wraps the stream printed output goes to (the process's stdout or
// stderr, a buffer in tests).
func NewWriter(w io.Writer) Writer { return Writer{w: w} }

// WithPolicy is w that also masks what p adds (its configured credentials)
// in everything it writes: text read back from a store that was written
// before the credential was configured passes the same door on its way out.
func (w Writer) WithPolicy(p Policy) Writer {
	w.p.creds = append(append([]Credential(nil), w.p.creds...), p.creds...)
	return w
}

// IsZero reports a Writer that writes nowhere.
func (w Writer) IsZero() bool { return w.w == nil }

// Print writes texts that passed the policy, one after another.
func (w Writer) Print(parts ...Text) error {
	if w.w == nil {
		return nil
	}
	if len(parts) == 1 {
		return w.write(parts[0].s)
	}
	return w.write(Concat(parts...).s)
}

// Printf writes Sprintf(format, args...): our constant words as written,
// every argument that is not a Text, a JSON or a number masked on its own.
func (w Writer) Printf(format constant, args ...any) error {
	return w.Print(Sprintf(format, args...))
}

// JSON writes a document that passed the policy, indented by two spaces,
// then a newline (the way every -o json output is printed).
func (w Writer) JSON(j JSON) error {
	if w.w == nil {
		return nil
	}
	raw := j.b
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if len(w.p.creds) > 0 {
		var err error
		if j, err = w.p.JSON(raw); err != nil {
			return fmt.Errorf("write JSON output: %w", err)
		}
		raw = j.b
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	buf.WriteByte('\n')
	if _, err := w.w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return nil
}

// Stream is an io.Writer whose every write passes Mask before it reaches
// w's stream, for a library that writes by itself (a terminal UI's frames,
// log records). Each write is masked on its own, so a caller writes whole
// lines or frames, never a secret in pieces. When w writes to a file (a
// terminal), the stream also has the file's Fd and Read, so a terminal UI
// can size the screen and switch its modes; Close leaves the file open.
func (w Writer) Stream() io.Writer {
	if f, ok := w.w.(*os.File); ok {
		return fileStream{stream{w}, f}
	}
	return stream{w}
}

// Protocol is w's stream for a protocol whose payloads passed the door
// already (MCP over stdio: its results, errors and resources are Text and
// JSON, docs/ARCHITECTURE.md): the framing is written as it is, since
// masking it would rewrite the protocol's own members (a progressToken is
// no credential). Only the MCP command calls it (lint rule egress-protocol).
func (w Writer) Protocol() io.Writer {
	if w.w == nil {
		return io.Discard
	}
	return w.w
}

// fileStream is the Stream of a file: the terminal's descriptor for the
// library that draws on it, every write masked.
type fileStream struct {
	stream
	f *os.File
}

// Read reads the file (a terminal's answers to the UI's queries).
func (s fileStream) Read(p []byte) (int, error) { return s.f.Read(p) }

// Fd is the file's descriptor.
func (s fileStream) Fd() uintptr { return s.f.Fd() }

// Close does nothing: the process's stream outlives the library using it.
func (fileStream) Close() error { return nil }

// stream is Writer.Stream.
type stream struct{ w Writer }

// Write masks p and writes it; it reports len(p) written when the masked
// text was, since the caller wrote p, not what the policy made of it.
func (s stream) Write(p []byte) (int, error) {
	if err := s.w.Print(Mask(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w Writer) write(s string) error {
	if s == "" {
		return nil
	}
	s = w.p.extra(s)
	if _, err := io.WriteString(w.w, s); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Builder gathers printed output piece by piece (a page, a table, a
// report) from texts that passed the policy; its zero value is empty.
type Builder struct{ b strings.Builder }

// Add appends texts that passed the policy.
func (b *Builder) Add(parts ...Text) {
	for _, p := range parts {
		b.b.WriteString(p.s)
	}
}

// Const appends one of our own texts.
func (b *Builder) Const(c constant) { b.b.WriteString(string(c)) }

// Printf appends Sprintf(format, args...).
func (b *Builder) Printf(format constant, args ...any) { b.Add(Sprintf(format, args...)) }

// Len is the number of bytes gathered.
func (b *Builder) Len() int { return b.b.Len() }

// Text is what was gathered.
func (b *Builder) Text() Text { return Text{b.b.String()} }
