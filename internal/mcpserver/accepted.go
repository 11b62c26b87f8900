package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxNotedCalls bounds the tools/call requests the server notes as read and
// not yet handled or answered; a call read beyond it is served as before but
// not noted.
const MaxNotedCalls = 4096

// acceptedKey is the _meta key under which the connection tags each
// tools/call it reads, so that the tool's handler can take its note.
const acceptedKey = "superbiz.dev/accepted"

// methodToolsCall and methodCancelled are the JSON-RPC methods the
// connection watches.
const (
	methodToolsCall = "tools/call"
	methodCancelled = "notifications/cancelled"
)

// accepted notes each tools/call the server has read until its handler
// takes it or it is answered. The SDK queues a request before our handler
// sees it, and answers a request cancelled in that queue without calling
// the handler: such a call, cancelled by the client or by the end of the
// connection, is audited here as its handler would have (CANCELLED), so
// every accepted call is audited, queued or not, and never twice.
type accepted struct {
	// notes are the server's: a handler finds its call's connection by
	// its tag there (the SDK hands the handler no request id).
	notes *notes
	mu    sync.Mutex
	byID  map[jsonrpc.ID]*notedCall
	// ended is set once reading ended: every call still queued is cancelled.
	ended bool
}

// notedCall is one tools/call read and not yet handled or answered.
type notedCall struct {
	seq       string
	name      string
	args      json.RawMessage
	cancelled bool
}

// read notes a tools/call (tagging its _meta) or marks the call a
// notifications/cancelled names.
func (a *accepted) read(req *jsonrpc.Request) {
	switch {
	case req.Method == methodToolsCall && req.IsCall():
		a.note(req)
	case req.Method == methodCancelled:
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		id, err := jsonrpc.MakeID(p.RequestID)
		if err != nil {
			return
		}
		a.mu.Lock()
		if c, ok := a.byID[id]; ok {
			c.cancelled = true
		}
		a.mu.Unlock()
	}
}

// note records one tools/call and tags it with its sequence number.
func (a *accepted) note(req *jsonrpc.Request) {
	var p map[string]json.RawMessage
	if json.Unmarshal(req.Params, &p) != nil || p == nil {
		return // the SDK refuses it: never accepted
	}
	var name string
	if json.Unmarshal(p["name"], &name) != nil {
		return
	}
	meta := map[string]json.RawMessage{}
	if m, ok := p["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, dup := a.byID[req.ID]; dup || len(a.byID) >= MaxNotedCalls {
		return
	}
	seq := strconv.FormatUint(a.notes.seq.Add(1), 10)
	meta[acceptedKey], _ = json.Marshal(seq)
	var err error
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return
	}
	params, err := json.Marshal(p)
	if err != nil {
		return
	}
	req.Params = params
	if a.byID == nil {
		a.byID = map[jsonrpc.ID]*notedCall{}
	}
	a.byID[req.ID] = &notedCall{seq: seq, name: name, args: p["arguments"]}
	a.notes.m.Store(seq, noteRef{a: a, id: req.ID})
}

// noteRef is where a tag's note lives: its connection and its request id.
type noteRef struct {
	a  *accepted
	id jsonrpc.ID
}

// notes maps each noted call's tag to its connection and request id.
type notes struct {
	seq atomic.Uint64
	m   sync.Map
}

// take is called by a tool's handler: the call is handled, so it is no
// longer its connection's to audit.
func (n *notes) take(req *mcp.CallToolRequest) {
	if req.Params == nil {
		return
	}
	seq, _ := req.Params.GetMeta()[acceptedKey].(string)
	if seq == "" {
		return
	}
	if ref, ok := n.m.LoadAndDelete(seq); ok {
		ref.(noteRef).take(seq)
	}
}

// take forgets the call tagged seq, looked up by its request id (an id a
// client reuses after its answer names a later call, so the tag must match):
// its handler runs.
func (r noteRef) take(seq string) {
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	if c, ok := r.a.byID[r.id]; ok && c.seq == seq {
		delete(r.a.byID, r.id)
	}
}

// answered forgets the call a response answers, and gives it back when its
// handler never ran and it was cancelled (by the client, or by the end of
// the connection): the SDK answered it from its queue.
func (a *accepted) answered(id jsonrpc.ID) (*notedCall, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.byID[id]
	if !ok {
		return nil, false
	}
	delete(a.byID, id)
	a.notes.m.Delete(c.seq)
	return c, c.cancelled || a.ended
}

// end marks reading ended (every queued call is cancelled with it).
func (a *accepted) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended = true
}

// clear forgets every note and gives back the calls still noted: the
// connection closes only once every request was answered or refused, so
// none of them was handled, and none was answered on the wire (the SDK
// refuses to write once the connection shuts down).
func (a *accepted) clear() []*notedCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	left := make([]*notedCall, 0, len(a.byID))
	for _, c := range a.byID {
		a.notes.m.Delete(c.seq)
		left = append(left, c)
	}
	a.byID = nil
	return left
}

// auditTransport wraps a transport so that its connection notes the calls
// it reads (see accepted).
type auditTransport struct {
	mcp.Transport
	s *Server
}

// Connect implements mcp.Transport.
func (t *auditTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &auditConn{Connection: c, s: t.s, a: &accepted{notes: &t.s.notes}}, nil
}

// auditConn is a connection that notes the tools/call requests it reads
// and audits those the SDK answers cancelled without handling them.
type auditConn struct {
	mcp.Connection
	s *Server
	a *accepted
	// initialized says an initialize request was read (Read runs on one
	// goroutine, the SDK's reader).
	initialized bool
}

// Read implements mcp.Connection. A second initialize request is answered
// here, as the invalid request it is (the SDK answers it with code 0).
func (c *auditConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			c.a.end()
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		if req.Method == methodInitialize && req.IsCall() {
			if c.initialized {
				res := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the session is already initialized"}}
				if err := c.Connection.Write(ctx, res); err != nil {
					return nil, err
				}
				continue
			}
			c.initialized = true
		}
		c.a.read(req)
		return msg, nil
	}
}

// methodInitialize is the MCP request that opens a session, once.
const methodInitialize = "initialize"

// Write implements mcp.Connection: a call answered without its handler,
// cancelled, is audited before its answer goes out.
func (c *auditConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if res, ok := msg.(*jsonrpc.Response); ok {
		if call, cancelled := c.a.answered(res.ID); cancelled {
			c.s.auditCancelled(call.name, call.args)
		}
	}
	return c.Connection.Write(ctx, msg)
}

// Close implements mcp.Connection: the calls read and never handled nor
// answered (cancelled by the end of the connection, or refused as it shut
// down) are audited.
func (c *auditConn) Close() error {
	for _, call := range c.a.clear() {
		c.s.auditCancelled(call.name, call.args)
	}
	return c.Connection.Close()
}
