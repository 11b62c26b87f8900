package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrameBytes bounds one inbound stdio frame (one line); a longer one is
// answered -32600 and skipped, never buffered whole.
const MaxFrameBytes = 4 << 20

// stdioTransport serves newline-delimited JSON-RPC over a reader and a
// writer, like the SDK's IOTransport, except that a malformed frame is
// answered with a JSON-RPC error (-32700 for text that is not JSON, -32600
// for JSON that is not one valid JSON-RPC 2.0 message) and the server keeps
// serving: the SDK's transport ends the connection, and every call in
// flight with it, at the first bad frame.
type stdioTransport struct {
	r io.Reader
	w io.Writer
	// end is called once when r ends or fails (the client went away).
	end func()
}

// Connect implements mcp.Transport.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{w: t.w, in: make(chan frame), closed: make(chan struct{})}
	go c.readLoop(t.r, t.end)
	return c, nil
}

// frame is one message read, or the error that ended the input.
type frame struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one stdio connection: a goroutine reads and checks frames,
// Write serialises whole frames on w.
type stdioConn struct {
	w      io.Writer
	wmu    sync.Mutex
	in     chan frame
	closed chan struct{}
	once   sync.Once
}

// readLoop reads frames until r ends, answering each malformed one.
func (c *stdioConn) readLoop(r io.Reader, end func()) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the frame is larger than %d bytes", MaxFrameBytes))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			msg, id, code, why := checkFrame(line)
			if code != 0 {
				c.reject(id, code, why)
			} else {
				select {
				case c.in <- frame{msg: msg}:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			if end != nil {
				end()
			}
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			select {
			case c.in <- frame{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// readLine reads one line without its newline; a line longer than
// MaxFrameBytes is read to its end and dropped (tooLong).
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxFrameBytes+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, tooLong, err
	}
}

// checkFrame decodes one frame, or says why it is not a JSON-RPC 2.0
// message: the code, the reason, and the request's id when it has a usable one.
func checkFrame(line []byte) (msg jsonrpc.Message, id json.RawMessage, code int, why string) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return nil, nil, jsonrpc.CodeParseError, "parse error: the frame is not JSON: " + errText(err)
	}
	switch line[0] {
	case '[':
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported (send one JSON-RPC message per line)"
	case '{':
	default:
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: " + errText(err)
	}
	rawID, hasID := m["id"]
	if hasID && !validID(rawID) {
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or an integer"
	}
	if hasID {
		id = rawID
	}
	if v := m["jsonrpc"]; string(v) != `"2.0"` {
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: jsonrpc must be "2.0"`
	}
	method, hasMethod := m["method"]
	switch {
	case hasMethod:
		var name string
		if json.Unmarshal(method, &name) != nil || name == "" {
			return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: method must be a non-empty string"
		}
		if p, ok := m["params"]; ok && (len(p) == 0 || (p[0] != '{' && p[0] != '[')) {
			return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: params must be an object"
		}
	case !hasID:
		return nil, nil, jsonrpc.CodeInvalidRequest, "invalid request: neither a request (method) nor a response (id)"
	default:
		_, hasResult := m["result"]
		_, hasError := m["error"]
		if hasResult == hasError {
			return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: a response has exactly one of result and error"
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: " + errText(err)
	}
	return msg, id, 0, ""
}

// validID reports a JSON-RPC id this server can answer: a string, or an
// integer that fits in 64 bits (not null, an object, 1e400 or 1.5).
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// errText is err's message, bounded and masked of nothing it did not read:
// the JSON decoder's message names an offset and a character, never the text.
func errText(err error) string {
	if err == nil {
		return "malformed"
	}
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// reject answers a malformed frame: the id when it had a usable one, else null.
func (c *stdioConn) reject(id json.RawMessage, code int, why string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, why}})
	if err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(append(body, '\n'))
}

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case f := <-c.in:
		return f.msg, f.err
	}
}

// Write implements mcp.Connection: one whole frame per message.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp stdio: encode: %w", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("mcp stdio: write: %w", err)
	}
	return nil
}

// Close implements mcp.Connection; the process's stdout stays open.
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }
