package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/internal/textclip"
)

// The Ollama client hides three facts the error mapping needs: the HTTP
// status of a streamed response (an empty 500 returns nil), whether the body
// ended in a read error (a cut stream returns nil), and whether a failing
// line was a server {"error":…} line or garbage (both come back as a plain
// error). observingTransport records them per call in a wireState carried by
// the request's context, so one Client serves concurrent calls safely.

type wireStateKey struct{}

// wireState is what one call saw on the wire.
type wireState struct {
	mu         sync.Mutex
	status     int
	html       bool   // the body is an HTML page (Content-Type or first bytes)
	title      string // the HTML page's <title>, bounded
	badArgs    string // why a tool call's string arguments were not accepted
	readErr    error
	errorLines []string // "error" members of {"error":…} lines, in order
	cur        []byte   // the line being assembled
	curTooLong bool
	lines      int // complete lines seen
}

func withWireState(ctx context.Context) (context.Context, *wireState) {
	ws := &wireState{}
	return context.WithValue(ctx, wireStateKey{}, ws), ws
}

// maxObservedLine bounds the line buffer: error lines are short, chunks that
// long are content and never need classifying.
const maxObservedLine = 64 << 10

func (ws *wireState) observe(p []byte) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if !ws.curTooLong {
			if len(ws.cur)+len(part) > maxObservedLine {
				ws.curTooLong, ws.cur = true, ws.cur[:0]
			} else {
				ws.cur = append(ws.cur, part...)
			}
		}
		if i < 0 {
			return
		}
		ws.endLine()
		p = p[i+1:]
	}
}

func (ws *wireState) endLine() {
	ws.lines++
	if ws.lines == 1 && !ws.curTooLong {
		if t := bytes.TrimSpace(ws.cur); len(t) > 0 && t[0] == '<' {
			ws.html = true
		}
	}
	if ws.html && ws.title == "" && !ws.curTooLong {
		ws.title = httpsource.HTMLTitle(ws.cur)
	}
	if !ws.curTooLong && bytes.Contains(ws.cur, []byte(`"error"`)) {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(ws.cur, &e) == nil && e.Error != "" {
			ws.errorLines = append(ws.errorLines, e.Error)
		}
	}
	ws.cur, ws.curTooLong = ws.cur[:0], false
}

// htmlPage reports whether the body was an HTML page, and its title.
func (ws *wireState) htmlPage() (bool, string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.html, ws.title
}

// badArguments is why a tool call's string arguments were refused, or "".
func (ws *wireState) badArguments() string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.badArgs
}

func (ws *wireState) snapshot() (status int, errorLines []string, readErr error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.status, append([]string(nil), ws.errorLines...), ws.readErr
}

// observingTransport wraps the caller's transport; it never changes a
// request, and changes a response only by the arguments repair of
// observedBody.
type observingTransport struct {
	base http.RoundTripper
}

func (t observingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	ws, _ := req.Context().Value(wireStateKey{}).(*wireState)
	if err != nil || ws == nil {
		return resp, err
	}
	ws.mu.Lock()
	ws.status = resp.StatusCode
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		ws.html = true
	}
	ws.mu.Unlock()
	resp.Body = &observedBody{rc: resp.Body, ws: ws}
	return resp, nil
}

// observedBody watches the body for the wireState and hands it on line by
// line, with one repair real clients make: tool-call arguments sent as a
// JSON string holding a JSON object (OpenAI-style proxies) are passed on as
// that object. Nothing else is ever changed.
type observedBody struct {
	rc  io.ReadCloser
	ws  *wireState
	buf [32 << 10]byte
	// line holds the current line until its newline; a line longer than
	// maxHeldLine is handed on as it comes (passing), never held whole.
	line    []byte
	passing bool
	out     []byte // bytes ready to hand on
	err     error  // the body's read error, returned once out is drained
}

// maxHeldLine bounds the line held for the arguments repair; tool-call
// chunks are far smaller, and the client refuses lines over 8 MB anyway.
const maxHeldLine = 1 << 20

func (b *observedBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		n, err := b.rc.Read(b.buf[:])
		if n > 0 {
			b.ws.observe(b.buf[:n])
			b.feed(b.buf[:n])
		}
		if err != nil {
			if err == io.EOF {
				b.ws.mu.Lock()
				if len(b.ws.cur) > 0 {
					b.ws.endLine()
				}
				b.ws.mu.Unlock()
			} else {
				b.ws.mu.Lock()
				if b.ws.readErr == nil {
					b.ws.readErr = err
				}
				b.ws.mu.Unlock()
			}
			if !b.passing {
				b.out = append(b.out, b.repair(b.line)...)
			}
			b.line = nil
			b.err = err
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	if len(b.out) == 0 && b.err != nil {
		return n, b.err
	}
	return n, nil
}

// feed splits chunk into lines, repairing each complete held line.
func (b *observedBody) feed(chunk []byte) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i+1]
		}
		chunk = chunk[len(part):]
		if b.passing {
			b.out = append(b.out, part...)
			b.passing = i < 0
			continue
		}
		b.line = append(b.line, part...)
		switch {
		case i >= 0:
			b.out = append(b.out, b.repair(b.line[:len(b.line)-1])...)
			b.out = append(b.out, '\n')
			b.line = b.line[:0]
		case len(b.line) > maxHeldLine:
			b.out = append(b.out, b.line...)
			b.line, b.passing = b.line[:0], true
		}
	}
}

// repair returns line with string tool-call arguments that hold a JSON
// object replaced by that object; a string holding anything else is left
// as it is (the client then fails on it) and its reason noted for the error.
func (b *observedBody) repair(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"tool_calls"`)) {
		return line
	}
	fixed, bad, changed := repairArguments(line)
	if bad != "" {
		b.ws.mu.Lock()
		if b.ws.badArgs == "" {
			b.ws.badArgs = bad
		}
		b.ws.mu.Unlock()
	}
	if !changed {
		return line
	}
	return fixed
}

// repairArguments rewrites message.tool_calls[].function.arguments of one
// chunk from a JSON string to the JSON object it holds (a blank string is
// {}), keeping the object's bytes, so its member order, exactly.
func repairArguments(line []byte) (fixed []byte, bad string, changed bool) {
	var chunk map[string]json.RawMessage
	if json.Unmarshal(line, &chunk) != nil {
		return nil, "", false
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(chunk["message"], &msg) != nil {
		return nil, "", false
	}
	var calls []map[string]json.RawMessage
	if json.Unmarshal(msg["tool_calls"], &calls) != nil {
		return nil, "", false
	}
	for i, call := range calls {
		var fn map[string]json.RawMessage
		if json.Unmarshal(call["function"], &fn) != nil {
			continue
		}
		args := bytes.TrimSpace(fn["arguments"])
		if len(args) == 0 || args[0] != '"' {
			continue
		}
		var text string
		if json.Unmarshal(args, &text) != nil {
			continue
		}
		obj := bytes.TrimSpace([]byte(text))
		if len(obj) == 0 {
			obj = []byte("{}")
		}
		if obj[0] != '{' || !json.Valid(obj) {
			var name string
			_ = json.Unmarshal(fn["name"], &name)
			bad = fmt.Sprintf("tool call %d (%s) sent its arguments as a JSON string that is not a JSON object: %q", i, textclip.Bytes(strings.TrimSpace(name), 64), textclip.Bytes(strings.TrimSpace(text), 60))
			continue
		}
		fn["arguments"] = obj
		enc := mustMarshal(fn)
		if enc == nil {
			return nil, bad, false
		}
		call["function"], changed = enc, true
	}
	if !changed {
		return nil, bad, false
	}
	if msg["tool_calls"] = mustMarshal(calls); msg["tool_calls"] == nil {
		return nil, bad, false
	}
	if chunk["message"] = mustMarshal(msg); chunk["message"] == nil {
		return nil, bad, false
	}
	out := mustMarshal(chunk)
	return out, bad, out != nil
}

// mustMarshal encodes v, or nil when it cannot (never for decoded JSON).
func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func (b *observedBody) Close() error { return b.rc.Close() }
