package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestContainsPastTheHead: a contains word that lies past the 64 KiB head
// of a long JSON line is found, in a plain file and a gzip (issue 36: the
// word past the head answered matched 0 with coverage data, a silent
// negative); a word in no entry still answers 0 with coverage data.
func TestContainsPastTheHead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	var b strings.Builder
	pad := strings.Repeat("x", 200<<10)
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i := range 720 {
		ts := t0.Add(time.Duration(i) * 10 * time.Second).Format(time.RFC3339)
		if i == 400 { // 10:06:40
			fmt.Fprintf(&b, `{"time":"%s","level":"error","msg":"upload rejected","payload":"%s","request_id":"req-7f3a9"}`+"\n", ts, pad)
			continue
		}
		fmt.Fprintf(&b, `{"time":"%s","level":"info","msg":"request %d"}`+"\n", ts, i)
	}
	day := []byte(b.String())
	for name, data := range map[string][]byte{"app.log": day, "app.log.gz": gzipped(t, day)} {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := logSourceConfig(t, e, "", p)
		got := queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T10:00:00Z","end":"2026-11-20T10:15:00Z","contains":"REQ-7F3A9"}`)
		if got.Matched != 1 || got.Coverage != "data" || len(got.Entries) != 1 || got.Entries[0].TS != "2026-11-20T10:06:40.000Z" {
			t.Errorf("%s: matched %d coverage %s entries %+v; want the 10:06:40 entry whose tail holds the word, coverage data", name, got.Matched, got.Coverage, got.Entries)
		}
		got = queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T10:00:00Z","end":"2026-11-20T10:15:00Z","contains":"req-0000"}`)
		if got.Matched != 0 || got.ContainsCut != 0 || got.Coverage != "data" {
			t.Errorf("%s: a word in no entry: matched %d contains_cut %d coverage %s; want 0, 0, data", name, got.Matched, got.ContainsCut, got.Coverage)
		}
	}
}
