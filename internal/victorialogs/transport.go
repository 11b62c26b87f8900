package victorialogs

import (
	"fmt"
	"net/http"
	"strings"
)

// SelectPrefix is the only path prefix a source is read under: LogsQL
// queries and their stats. /insert/*, /delete/* and /internal/* write,
// delete or flush, and are never called.
const SelectPrefix = "/select/"

// PartialParam is the query argument that would make a cluster answer 200
// with part of the data and no marker when a storage node is down: never
// sent, and refused if anything tried.
const PartialParam = "allow_partial_response"

// ReadOnly is a transport that sends only GET and POST requests under
// SelectPrefix (after the source URL's own path prefix, base), without
// PartialParam, through next; any other request fails before it leaves.
type ReadOnly struct {
	Base string
	Next http.RoundTripper
}

// RoundTrip refuses a request that is not a read of /select/*.
func (t ReadOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	path, under := strings.CutPrefix(req.URL.Path, strings.TrimSuffix(t.Base, "/"))
	switch {
	case !under:
		return nil, fmt.Errorf("victorialogs: refused %s: not under the source's path %s", req.URL.Path, t.Base)
	case req.Method != http.MethodGet && req.Method != http.MethodPost:
		return nil, fmt.Errorf("victorialogs: refused %s %s: only reads of %s* are sent", req.Method, req.URL.Path, SelectPrefix)
	case !strings.HasPrefix(path, SelectPrefix) || strings.Contains(path, ".."):
		return nil, fmt.Errorf("victorialogs: refused %s: only %s* endpoints are called", req.URL.Path, SelectPrefix)
	case req.URL.Query().Has(PartialParam):
		return nil, fmt.Errorf("victorialogs: refused %s: %s would hide a storage node that is down", req.URL.Path, PartialParam)
	}
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(req)
}
