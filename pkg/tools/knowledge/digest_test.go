package knowledge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestDigestRoundTrip(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tests := []struct {
		d    digest
		why  string
		form string
	}{
		{digest{sum: sum}, "", indexFormat + sum},
		{digest{sum: sum, sections: MaxSectionsPerFile}, "", indexFormat + sum},
		{digest{sum: sum, sections: MaxSectionsPerFile + 5}, sectionsCut(MaxSectionsPerFile + 5), indexFormat + sum + cutMark + "261"},
		{digest{sum: sum, refused: ReasonEncoding + ": x"}, ReasonEncoding + ": x", indexFormat + sum + refusedMark + ReasonEncoding + ": x"},
	}
	for _, tt := range tests {
		form := tt.d.String()
		if form != tt.form {
			t.Errorf("%+v stored as %q, want %q", tt.d, form, tt.form)
		}
		back, current := parseDigest(form)
		if !current || back.exclusion() != tt.why || back.sum != sum {
			t.Errorf("%q read back as %+v (current %v), exclusion %q want %q", form, back, current, back.exclusion(), tt.why)
		}
	}
	if _, current := parseDigest("v2:" + sum); current {
		t.Error("a v2 row reads as current")
	}
}

// A store written before encodings and identifier words (format v2) is
// split again on the next sync, even though no file changed.
func TestSyncResplitsOlderFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "KubeJobFailed.md", "# Batch task\n\n## Meaning\n\nOne run exited non-zero.\n")
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	if _, err := ix.db.ExecContext(context.Background(), `UPDATE kb_files SET sha256 = 'v2:' || substr(sha256, length(?) + 1)`, indexFormat); err != nil {
		t.Fatal(err)
	}
	if st := mustSync(t, ix); st.Indexed != 1 || st.Skipped != 0 {
		t.Fatalf("sync over a v2 store: %+v, want the file split again", st)
	}
	if st := mustSync(t, ix); st.Indexed != 0 || st.Skipped != 1 {
		t.Fatalf("next sync: %+v, want it skipped", st)
	}
}
