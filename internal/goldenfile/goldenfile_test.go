package goldenfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recordingTB notes Fatal and Fatalf instead of stopping the test.
type recordingTB struct {
	testing.TB
	fatal string
}

func (r *recordingTB) Fatal(args ...any)                 { r.fatal = fmt.Sprint(args...) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordingTB) Helper()                           {}

// Check reads testdata/NAME, not the test's name: equal bytes pass,
// different bytes and a name without .golden fail.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join("testdata", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "sub", "page.md.golden"), []byte("# page\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got string
		fails     bool
	}{
		{"sub/page.md.golden", "# page\n", false},
		{"sub/page.md.golden", "# other\n", true},
		{"sub/page.md", "# page\n", true},
		{"sub/absent.golden", "# page\n", true},
	} {
		r := &recordingTB{TB: t}
		Check(r, tc.name, []byte(tc.got))
		if (r.fatal != "") != tc.fails {
			t.Errorf("Check(%q, %q): failure %q, want failing %v", tc.name, tc.got, r.fatal, tc.fails)
		}
	}
}
