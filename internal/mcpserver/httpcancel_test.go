package mcpserver

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callOn is a tool call as the SDK hands it over, carried by a request
// with these headers (nil: not over HTTP).
func callOn(h http.Header) *mcp.CallToolRequest {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "query_logs"}}
	if h != nil {
		req.Extra = &mcp.RequestExtra{Header: h}
	}
	return req
}

// cancelled says whether ctx ends within a short wait.
func cancelled(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// A call ends with the HTTP request that carried it, at once when that
// request is already over, and never for a call that came another way.
func TestCallEndsWithItsRequest(t *testing.T) {
	var reqs requests
	reqCtx, endReq := context.WithCancel(context.Background())
	defer endReq()
	reqs.add(reqCtx, "r1")

	live, cancelLive := context.WithCancel(context.Background())
	defer cancelLive()
	defer reqs.endWith(callOn(http.Header{RequestIDHeader: {"r1"}}), cancelLive)()
	if cancelled(live) {
		t.Fatal("a call was cancelled while its request was still served")
	}

	gone, cancelGone := context.WithCancel(context.Background())
	defer cancelGone()
	defer reqs.endWith(callOn(http.Header{RequestIDHeader: {"r0"}}), cancelGone)()
	if !cancelled(gone) {
		t.Error("a call whose request is already over was not cancelled")
	}

	for name, h := range map[string]http.Header{"stdio": nil, "no id": {}} {
		ctx, cancel := context.WithCancel(context.Background())
		defer reqs.endWith(callOn(h), cancel)()
		endReq()
		if cancelled(ctx) {
			t.Errorf("%s: a call not carried by a tracked request was cancelled", name)
		}
		cancel()
	}
	if !cancelled(live) {
		t.Error("a call went on after its request ended (the client disconnected)")
	}
	reqs.remove("r1")
	if len(reqs.m) != 0 {
		t.Errorf("requests still held after they were served: %v", reqs.m)
	}
}
