package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestCheckFrame(t *testing.T) {
	for _, tt := range []struct {
		frame string
		code  int
		id    string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, "1"},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}`, 0, `"a"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, 0, "3"},
		{`nope`, jsonrpc.CodeParseError, ""},
		{`{"a":`, jsonrpc.CodeParseError, ""},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), jsonrpc.CodeParseError, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, ""},
		{`null`, jsonrpc.CodeInvalidRequest, ""},
		{`42`, jsonrpc.CodeInvalidRequest, ""},
		{`{}`, jsonrpc.CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, jsonrpc.CodeInvalidRequest, ""},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":5,"method":""}`, jsonrpc.CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, "6"},
		{`{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`, jsonrpc.CodeInvalidRequest, "7"},
	} {
		msg, id, code, why := checkFrame([]byte(tt.frame))
		if code != tt.code || string(id) != tt.id || (code == 0) != (msg != nil) || (code != 0) == (why == "") {
			t.Errorf("%.60s: code %d id %s why %q msg %v; want code %d id %s", tt.frame, code, id, why, msg, tt.code, tt.id)
		}
	}
}

// FuzzCheckFrame: any line is either one decoded message or a JSON-RPC
// error answer that is itself one valid JSON-RPC 2.0 response.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `null`, `{"id":1e400}`, `{"jsonrpc":"2.0","id":"x","result":1}`, "{\"a\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, id, code, why := checkFrame(line)
		if code == 0 {
			if msg == nil {
				t.Fatalf("%q: no message and no error", line)
			}
			return
		}
		var out bytes.Buffer
		c := &stdioConn{w: &out}
		c.reject(id, code, why)
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct{ Code int }
		}
		if err := json.Unmarshal(out.Bytes(), &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error.Code != code || len(resp.ID) == 0 {
			t.Fatalf("%q: answer %q is not a JSON-RPC error: %v", line, out.Bytes(), err)
		}
	})
}

// readLine drops a line longer than MaxFrameBytes whole and goes on with
// the next one.
func TestReadLineBounded(t *testing.T) {
	in := strings.Repeat("a", MaxFrameBytes+10) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	var out bytes.Buffer
	c := &stdioConn{w: &out, in: make(chan frame, 4), closed: make(chan struct{})}
	go c.readLoop(strings.NewReader(in), nil)
	if f := <-c.in; f.err != nil || f.msg == nil {
		t.Fatalf("the frame after the long line: %+v", f)
	}
	if f := <-c.in; !errors.Is(f.err, io.EOF) {
		t.Fatalf("the end: %+v", f)
	}
	if !strings.Contains(out.String(), `"code":-32600`) || !strings.Contains(out.String(), "larger than") {
		t.Errorf("answer to the long line: %q", out.String())
	}
}

func TestBadOrigin(t *testing.T) {
	for _, tt := range []struct {
		origin, host string
		bad          bool
	}{
		{"", "127.0.0.1:8765", false},
		{"http://127.0.0.1:8765", "127.0.0.1:8765", false},
		{"https://LOCALHOST:8765", "localhost:8765", false},
		{"http://127.0.0.1:8766", "127.0.0.1:8765", true},
		{"http://evil.example", "127.0.0.1:8765", true},
		{"null", "127.0.0.1:8765", true},
		{"file://", "127.0.0.1:8765", true},
	} {
		r := httptest.NewRequestWithContext(context.Background(), "POST", "http://"+tt.host+"/", nil)
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		if got := badOrigin(r) != ""; got != tt.bad {
			t.Errorf("Origin %q to %s: refused %v, want %v", tt.origin, tt.host, got, tt.bad)
		}
	}
}

// Every nullable member is an anyOf of single-type branches: no "type"
// array anywhere, and the null branch is there.
func TestNullableSchemaSingleTypes(t *testing.T) {
	raw := nullableSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}}}},"c":{"type":"string"}}}`))
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"type":[`) {
		t.Errorf("a type array remains: %s", raw)
	}
	want := `{"properties":{"a":{"anyOf":[{"items":{"anyOf":[{"properties":{"b":{"type":"string"}},"type":"object"},{"type":"null"}]},"type":"array"},{"type":"null"}]},"c":{"type":"string"}},"type":"object"}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
}
