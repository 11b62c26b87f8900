package reliability

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestRecordAppendsOneLinePerFigure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "figures.jsonl")
	t.Setenv(EnvOut, out)
	Record(t, SectionSQL, "sqlite", map[string]any{"tried": 3, "admitted": 1})
	Record(t, SectionSQL, "mariadb", map[string]any{"tried": 5, "admitted": 2})
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []Figure
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var fig Figure
		if err := json.Unmarshal(sc.Bytes(), &fig); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, fig)
	}
	if len(got) != 2 || got[0].Row != "sqlite" || got[1].Values["tried"] != float64(5) || got[0].Test != t.Name() {
		t.Fatalf("figures = %+v", got)
	}
}

func TestRecordWithoutEnvWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvOut, "")
	t.Chdir(dir)
	Record(t, SectionSQL, "x", nil)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("files written: %v", entries)
	}
}
