package egress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Writer is the door for printed output (stdout, stderr, progress lines): it
// writes only a Text or a JSON, so a string read at run time cannot reach a
// terminal or a pipe without passing the policy. It holds the stream it
// writes to and never hands it out; Stream and Screen give a writer that
// masks what it is given, for a library that writes by itself. The zero
// value discards.
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

// Stream is the stream Writer.Stream and Writer.Screen give a library that
// writes by itself: every byte passes Mask before it reaches the Writer's
// stream. Flush writes what a line-holding stream holds back (a progress
// bar calls it after each redraw); Close flushes too and leaves the
// process's stream open.
type Stream interface {
	io.WriteCloser
	Flush() error
}

// Stream is a Stream that masks whole lines, for a library that writes a
// line in pieces (cobra's help templates, log records, a progress bar): a
// write's text up to its last line end ('\n' or '\r') is masked and written
// at once, and the tail after it is held back until a later write ends the
// line, Flush or Close, so a secret split across writes is masked whole. A
// tail that ends in a terminal control sequence (cursor movement, erase,
// mode: anything but colour) is written at once, as is a tail over
// MaxStreamTail bytes: a terminal sees a redraw when it is drawn, memory is
// bounded and nothing is lost. No timer writes behind the caller's back,
// so what the stream writes keeps its order with what the Writer prints.
// When w writes to a file (a terminal), the stream also has the file's Fd
// and Read.
func (w Writer) Stream() Stream { return w.newStream(false) }

// Screen is a Stream for a terminal UI whose every write is a whole frame
// (bubbletea's renderer writes a frame in one Write): each write is masked
// whole and written at once, since a frame's last line has no line end and
// must show now. With a file, it has the file's Fd and Read, so the UI can
// size the screen and switch its modes.
func (w Writer) Screen() Stream { return w.newStream(true) }

func (w Writer) newStream(frames bool) Stream {
	s := &stream{w: w, frames: frames}
	if f, ok := w.w.(*os.File); ok {
		return fileStream{s, f}
	}
	return s
}

// MaxStreamTail bounds the tail Stream holds back (a line longer than this
// is masked in pieces of at least this size).
const MaxStreamTail = 64 << 10

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
	*stream
	f *os.File
}

// Read reads the file (a terminal's answers to the UI's queries).
func (s fileStream) Read(p []byte) (int, error) { return s.f.Read(p) }

// Fd is the file's descriptor.
func (s fileStream) Fd() uintptr { return s.f.Fd() }

// stream is Writer.Stream and Writer.Screen: the tail of the last line
// written, held back until its line ends, Flush or Close (never with
// frames, whose every write is written whole).
type stream struct {
	w      Writer
	frames bool

	mu   sync.Mutex
	tail []byte
}

// Write masks and writes p's complete lines (with the tail held before
// them) and holds back the rest; it reports len(p) written when the masked
// text was, since the caller wrote p, not what the policy made of it.
func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = append(s.tail, p...)
	cut := bytes.LastIndexAny(s.tail, "\n\r") + 1
	if s.frames || len(s.tail) > MaxStreamTail || endsInControl(s.tail) {
		cut = len(s.tail)
	}
	if err := s.emit(cut); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the held tail, masked.
func (s *stream) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emit(len(s.tail))
}

// Close writes the held tail, masked; the stream stays usable (the
// process's stream outlives the library using it).
func (s *stream) Close() error { return s.Flush() }

// emit masks and writes the first n bytes of the tail and keeps the rest.
// The caller holds mu.
func (s *stream) emit(n int) error {
	if n == 0 {
		return nil
	}
	text := string(s.tail[:n])
	s.tail = append(s.tail[:0], s.tail[n:]...)
	return s.w.Print(Mask(text))
}

// endsInControl reports text ending in a complete CSI control sequence
// other than SGR (colour, 'm'): a cursor movement, an erase or a mode
// switch, which a writer sends when the terminal must show what it drew.
func endsInControl(text []byte) bool {
	n := len(text)
	if n < 3 {
		return false
	}
	final := text[n-1]
	if final < 0x40 || final > 0x7e || final == 'm' {
		return false
	}
	// Parameter (0x30-0x3f) and intermediate (0x20-0x2f) bytes back to "ESC [".
	i := n - 2
	for i >= 0 && text[i] >= 0x20 && text[i] <= 0x3f {
		i--
	}
	return i >= 1 && text[i] == '[' && text[i-1] == 0x1b
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
