package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
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
	readErr    error
	errorLines []string // "error" members of {"error":…} lines, in order
	cur        []byte   // the line being assembled
	curTooLong bool
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

func (ws *wireState) snapshot() (status int, readErr error, errorLines []string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.status, ws.readErr, append([]string(nil), ws.errorLines...)
}

// observingTransport wraps the caller's transport; it never changes a request
// or a response, it only watches them.
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
	ws.mu.Unlock()
	resp.Body = &observedBody{rc: resp.Body, ws: ws}
	return resp, nil
}

type observedBody struct {
	rc io.ReadCloser
	ws *wireState
}

func (b *observedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.ws.observe(p[:n])
	}
	if err == io.EOF {
		b.ws.mu.Lock()
		if len(b.ws.cur) > 0 {
			b.ws.endLine()
		}
		b.ws.mu.Unlock()
	} else if err != nil {
		b.ws.mu.Lock()
		if b.ws.readErr == nil {
			b.ws.readErr = err
		}
		b.ws.mu.Unlock()
	}
	return n, err
}

func (b *observedBody) Close() error { return b.rc.Close() }
