package knowledge

import (
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/pkg/tools"
)

// TestDocumentWireShape: a lookup_knowledge document is the shared
// tools.DocRef plus snippet and score, flat on the wire, in this order.
func TestDocumentWireShape(t *testing.T) {
	b, err := json.Marshal(Document{DocRef: tools.DocRef{DocID: "en/a.md#x", Title: "T", Source: "en/a.md"}, Snippet: "s", Score: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"doc_id":"en/a.md#x","title":"T","source":"en/a.md","snippet":"s","score":1.5}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}
