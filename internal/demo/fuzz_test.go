package demo

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadManifest: the marker parser never panics, and what it accepts is
// one 64-hex-digit digest per non-empty path; everything else is
// errUntrusted (the workspace is rebuilt).
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(Version + "\n"))
	f.Add([]byte(Version + "\n" + "ab  x\n"))
	f.Add([]byte(Version + "\n" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef  runbooks/en/a.md\n"))
	f.Add([]byte("superbiz-demo/0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), markerName)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		m, err := readManifest(p)
		if err != nil {
			if !errors.Is(err, errUntrusted) {
				t.Fatalf("error %v is not errUntrusted", err)
			}
			return
		}
		for rel, sum := range m {
			if _, err := hex.DecodeString(sum); rel == "" || len(sum) != 64 || err != nil {
				t.Fatalf("accepted entry %q %q", sum, rel)
			}
		}
	})
}
