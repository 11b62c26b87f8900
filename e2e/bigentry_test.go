package e2e

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestContainsPastChunkEnd: `tools call query_logs` finds a contains word
// at the end of a Java stack trace of 6 MiB (continuation lines, each far
// under the long-line cap), past the 4 MiB the scan reads at a time, in a
// plain file and in a gzip file, and counts the entry once with its whole
// trace glued: never NO_EVIDENCE over data that holds the word.
func TestContainsPastChunkEnd(t *testing.T) {
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			e := newEnv(t, testenv.ClosedURL(t))
			p := filepath.Join(e.dir, "app.log")
			if gz {
				p += ".gz"
			}
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			var out io.Writer = f
			var zw *gzip.Writer
			if gz {
				zw = gzip.NewWriter(f)
				out = zw
			}
			w := bufio.NewWriterSize(out, 1<<20)
			_, _ = w.WriteString("2026-03-14 14:01:00 INFO [api] started\n2026-03-14 14:02:00 ERROR [api] checkout failed\n")
			frames := 0
			for n := 0; n < 6<<20; frames++ {
				k, _ := fmt.Fprintf(w, "\tat com.example.checkout.Stage%d.run(Stage.java:%d)\n", frames, frames%977)
				n += k
			}
			_, _ = w.WriteString("Caused by: java.io.IOException: redis-cluster-01 unreachable\n2026-03-14 14:09:00 INFO [api] still up\n")
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if zw != nil {
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			cfg := customLogSource(t, e, p)
			r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", `{"source":"app","since":"2h","contains":"redis-cluster-01"}`)...)
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			var obs struct {
				Status string `json:"evidence_status"`
				Result struct {
					Matched  int    `json:"matched"`
					Glued    int    `json:"glued"`
					Coverage string `json:"coverage"`
					Entries  []struct {
						TS string `json:"ts"`
					} `json:"entries"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil {
				t.Fatalf("decode: %v\n%s", err, r)
			}
			res := obs.Result
			if obs.Status != "EVIDENCE_FOUND" || res.Matched != 1 || res.Glued != frames+1 || len(res.Entries) != 1 || res.Entries[0].TS != "2026-03-14T14:02:00.000Z" {
				t.Fatalf("status %s matched %d glued %d (want 1, %d) entries %+v coverage %q", obs.Status, res.Matched, res.Glued, frames+1, res.Entries, res.Coverage)
			}
		})
	}
}
