package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 34 items 12 and 14: eval pack writes log entries through the same
// egress policy as query_logs, and reads a log file through bounded memory,
// leaving nothing behind when it fails.

// payPack runs the payment diagnosis on the frozen workspace and returns
// the log file the run read, for a test to change before eval pack.
func payPack(t *testing.T) (*env, string) {
	t.Helper()
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	ws, _ := frozenWorkspace(t, e)
	srv.Script(paymentRun(t)...)
	if r := e.run(t, "diagnose", "-o", "json", queryPayment); r.code != 0 {
		t.Fatalf("the diagnosis: %s", r)
	}
	return e, filepath.Join(ws, "logs", "payment-service", "payment-service.log")
}

// Secret shapes query_logs masks, in log entries inside the run's window:
// a secret-named member holding an array, a nested object, a secret in
// JSON escaped inside a string, and a quoted key=value pair.
func TestEvalPackLogsMaskedAsQueryLogs(t *testing.T) {
	e, log := payPack(t)
	canaries := []string{"CanaryArrayPw1x", "CanaryNestedTok2y", "CanaryEscapedPw3z", "CanarySigningKey4w"}
	appendFile(t, log, strings.Join([]string{
		`{"ts":"2026-11-28T14:59:31.000Z","level":"ERROR","service":"payment-service","msg":"login","password":["CanaryArrayPw1x"]}`,
		`{"ts":"2026-11-28T14:59:32.000Z","level":"ERROR","service":"payment-service","msg":"vault","credentials":{"token":{"value":"CanaryNestedTok2y"}}}`,
		`{"ts":"2026-11-28T14:59:33.000Z","level":"ERROR","service":"payment-service","msg":"body {\"password\":\"CanaryEscapedPw3z\"}"}`,
		`{"ts":"2026-11-28T14:59:34.000Z","level":"ERROR","service":"payment-service","msg":"signing_key='CanarySigningKey4w' rejected"}`,
	}, "\n")+"\n")
	// query_logs masks each of them.
	r := e.run(t, "tools", "call", "query_logs", `{"source":"demo","start":"2026-11-28T14:59:30Z","end":"2026-11-28T14:59:40Z","limit":50}`)
	for _, c := range canaries {
		if strings.Contains(r.stdout+r.stderr, c) {
			t.Errorf("query_logs shows %s\n%s", c, r)
		}
	}
	packs := filepath.Join(e.dir, "packs")
	if r := e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "masked", "--root-cause", "pool"); r.code != 0 {
		t.Fatalf("eval pack: %s", r)
	}
	frozenLog := false
	for path, b := range packFiles(t, packs) {
		for _, c := range canaries {
			if bytes.Contains(b, []byte(c)) {
				t.Errorf("%s holds %s", path, c)
			}
		}
		frozenLog = frozenLog || bytes.Contains(b, []byte("2026-11-28T14:59:34.000Z"))
	}
	if !frozenLog {
		t.Error("the planted entries were not frozen at all")
	}
}

// A log line of 1 GiB with no newline (a sparse file's hole) inside the
// run's window is frozen through bounded memory, kept to its first
// MaxEntryBytes; a pack that fails (a corrupt gzip file of the source)
// leaves no temporary folder.
func TestEvalPackLogsBoundedMemory(t *testing.T) {
	e, log := payPack(t)
	appendFile(t, log, `{"ts":"2026-11-28T14:59:35.000Z","level":"ERROR","service":"payment-service","msg":"huge `)
	st, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(log, st.Size()+1<<30); err != nil {
		t.Fatal(err)
	}
	packs := filepath.Join(e.dir, "packs")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, out, errOut := e.command(ctx, "eval", "pack", "last", "--dir", packs, "--id", "huge", "--root-cause", "pool")
	if err := c.Run(); err != nil {
		t.Fatalf("eval pack: %v\n%s\n%s", err, out, errOut)
	}
	rss := c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("eval pack of a 1 GiB line: peak RSS %d MiB", rss>>20)
	if rss > 400<<20 {
		t.Errorf("eval pack held %d MiB for a 1 GiB line: not bounded", rss>>20)
	}
	if !strings.Contains(out.String(), "1 entr(ies) longer than 16 MiB kept to their first 16 MiB") {
		t.Errorf("the report does not say the entry was cut:\n%s", out)
	}

	// A corrupt gzip file among the source's files fails the pack, which
	// leaves nothing in the suite folder.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := range 20000 {
		fmt.Fprintf(zw, `{"ts":"2026-11-28T14:%02d:%02d.000Z","level":"INFO","service":"payment-service","msg":"line %d"}`+"\n", 40+i/3600%20, i/60%60, i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(log), "payment-service.log.1.gz"), gz.Bytes()[:gz.Len()*3/4], 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run(t, "eval", "pack", "last", "--dir", packs, "--id", "broken", "--root-cause", "pool"); r.code == 0 {
		t.Fatalf("a corrupt gzip was frozen: %s", r)
	}
	entries, err := os.ReadDir(packs)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if en.Name() != "huge" {
			t.Errorf("a failed pack left %s", en.Name())
		}
	}
}
