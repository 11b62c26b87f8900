package runstore

import (
	"strings"
	"testing"
)

// FuzzFileURI checks that any database path (the user's --db) becomes a URI
// whose path part decodes back to exactly that path and that cannot smuggle
// in query parameters or a fragment.
func FuzzFileURI(f *testing.F) {
	for _, p := range []string{"/tmp/superbiz.db", "/a b/c.db", "/x?mode=ro", "/y#frag", "/100%/z.db", "/é/ü.db"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if strings.ContainsRune(p, 0) {
			return // no OS path holds NUL
		}
		uri := fileURI(p)
		if strings.ContainsAny(uri, "?# \t\n") {
			t.Fatalf("fileURI(%q) = %q leaves a delimiter or space unescaped", p, uri)
		}
		back, err := uriPath(uri)
		if err != nil {
			t.Fatalf("uriPath(fileURI(%q)) = %v", p, err)
		}
		if back != p {
			t.Fatalf("round trip of %q gave %q via %q", p, back, uri)
		}
	})
}
