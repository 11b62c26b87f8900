package egress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Transport is the door for a request body built by a library we cannot
// hand a JSON (the Ollama client): every request body base sends passes the
// policy first, as a JSON document when it is one, else as text. A request
// without a body passes unchanged.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return transport{base: base}
}

type transport struct{ base http.RoundTripper }

// RoundTrip masks the body, then sends the request with base.
func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return t.base.RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("egress: read the request body: %w", err)
	}
	var out []byte
	if json.Valid(raw) {
		j, err := MaskJSON(raw)
		if err != nil {
			return nil, err
		}
		out = j.Bytes()
	} else {
		out = []byte(Mask(string(raw)).String())
	}
	r2 := req.Clone(req.Context())
	r2.Body = io.NopCloser(bytes.NewReader(out))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	r2.ContentLength = int64(len(out))
	return t.base.RoundTrip(r2)
}
