package mcpserver

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
)

// RequestIDHeader names the header Handler sets on every HTTP request it
// serves (replacing any value the client sent), so that a tool call can find
// the request that carried it and end when that request ends.
const RequestIDHeader = "Superbiz-Request-Id"

// requests holds the context of every HTTP request being served, by the id
// Handler gave it. The SDK runs a tool call on the session's context, which
// outlives the POST that carried the call: without this a client that drops
// its connection leaves the call running to its end.
type requests struct {
	mu sync.Mutex
	m  map[string]context.Context
}

// add records ctx as the context of the request id while it is served.
func (r *requests) add(ctx context.Context, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]context.Context{}
	}
	r.m[id] = ctx
}

// remove forgets the request id once it has been served.
func (r *requests) remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, id)
}

// endWith calls cancel when the HTTP request that carried req ends (the
// client disconnected, or the response is done), or at once when that
// request is already over; a call that came another way (stdio) is left
// alone. The returned function stops watching.
func (r *requests) endWith(req *mcp.CallToolRequest, cancel context.CancelFunc) func() bool {
	if req.Extra == nil || req.Extra.Header == nil {
		return func() bool { return false }
	}
	id := req.Extra.Header.Get(RequestIDHeader)
	if id == "" {
		return func() bool { return false }
	}
	r.mu.Lock()
	ctx, ok := r.m[id]
	r.mu.Unlock()
	if !ok {
		cancel()
		return func() bool { return false }
	}
	return context.AfterFunc(ctx, cancel)
}

// Handler serves the server over streamable HTTP. Each request gets its own
// id in RequestIDHeader, and a tool call ends (a diagnosis is stored
// CANCELLED) when the request that carried it ends: a client that
// disconnects mid-call cancels it, since without an event store no client
// can resume the stream to get its answer. A request whose Origin is not
// the server's own is refused (403) before anything reads it, and a
// session idle for Options.SessionTimeout is closed.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, &mcp.StreamableHTTPOptions{SessionTimeout: s.opts.SessionTimeout})
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if why := badOrigin(r); why != "" {
			http.Error(rw, "403 forbidden: "+why, http.StatusForbidden)
			return
		}
		// The server stopping ends every request, the clients' open event
		// streams too, so a graceful shutdown does not wait on them.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(s.life, cancel)
		defer stop()
		r = r.WithContext(ctx)
		id := rand.Text()
		r.Header.Set(RequestIDHeader, id)
		s.reqs.add(r.Context(), id)
		defer s.reqs.remove(id)
		h.ServeHTTP(rw, r)
	})
}

// badOrigin says why a request's Origin header is refused, "" when it is
// absent (a client that is not a browser sends none) or names this server
// itself (scheme http or https, the host and port the request was sent to).
// The streamable HTTP transport requires it: a web page the user visits
// must not reach a server bound to their loopback (DNS rebinding).
func badOrigin(r *http.Request) string {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "the Origin header is not an http(s) origin"
	}
	if !strings.EqualFold(u.Host, r.Host) {
		return egress.Sprintf("Origin %s is not this server (%s)", textclip.Bytes(origin, 100), textclip.Bytes(r.Host, 100)).Shown().String()
	}
	return ""
}
