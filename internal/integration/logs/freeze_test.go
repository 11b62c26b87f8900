package logs

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/logparse"
)

// A log file keeps the entries whose time is in the window, each with its
// continuation lines, masked; a gzip file is read unpacked.
func TestFreezeLogFile(t *testing.T) {
	lines := []string{
		"2026-11-20 08:00:00 INFO early start",
		"2026-11-20 09:00:00 ERROR payment failed password=Sw0rdfish99",
		"\tat com.shop.Pay.charge(Pay.java:42)",
		"\tat com.shop.Pay.run(Pay.java:7)",
		"2026-11-20 09:05:00 INFO in the window",
		"2026-11-20 10:30:00 INFO too late",
		"\tat com.shop.Late.run(Late.java:1)",
	}
	body := strings.Join(lines, "\n") + "\n"
	dir := t.TempDir()
	plain := filepath.Join(dir, "app.log")
	if err := os.WriteFile(plain, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(body))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	packed := filepath.Join(dir, "app.log.1.gz")
	if err := os.WriteFile(packed, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cands, err := logparse.LayoutsFor("custom", `(?P<ts>\S+ \S+) (?P<level>\w+) (?P<msg>.*)`, "2006-01-02 15:04:05")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := time.Date(2026, 11, 20, 8, 50, 0, 0, time.UTC), time.Date(2026, 11, 20, 9, 10, 0, 0, time.UTC)
	want := "2026-11-20 09:00:00 ERROR payment failed password=[REDACTED]\n" + lines[2] + "\n" + lines[3] + "\n" + lines[4] + "\n"
	for _, src := range []string{plain, packed} {
		dst := filepath.Join(dir, "out", filepath.Base(src))
		ff, err := freezeFile(context.Background(), &frozen.Pack{Dir: dir}, src, dst, cands, time.UTC, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(dst)
		if err != nil || string(got) != want || ff.lines != 4 {
			t.Errorf("%s: %d lines (%v):\n%s\nwant\n%s", src, ff.lines, err, got, want)
		}
	}
	untimed := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(untimed, []byte("no time here\nnor here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := freezeFile(context.Background(), &frozen.Pack{Dir: dir}, untimed, filepath.Join(dir, "out", "notes.txt"), cands, time.UTC, lo, hi); err != errNoTime {
		t.Errorf("a file without time: %v", err)
	}
}
