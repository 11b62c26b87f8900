package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
)

// filteredLogsWorkspace writes two logback files whose ERROR entries (with
// their stack traces) lie past the 1 MiB sample `logs inspect` shows its
// first entries from: a.log's at 11:50, b.log's at 11:55.
func filteredLogsWorkspace(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	env := diagnoseEnv(t)
	env["SUPERBIZ_NOW"] = "2026-03-01T12:00:00Z"
	for _, f := range []struct{ name, errAt string }{{"a.log", "11:50"}, {"b.log", "11:55"}} {
		var b strings.Builder
		for i := 0; b.Len() < 1200<<10; i++ {
			fmt.Fprintf(&b, "2026-03-01 11:%02d:%02d.%03d INFO  [http-nio-8080-exec-%d] c.s.order.OrderController - order %d accepted\n", 40+i/6000%10, i/100%60, i%1000, i%8, 1000+i)
		}
		fmt.Fprintf(&b, "2026-03-01 %s:00.123 ERROR [http-nio-8080-exec-3] c.s.pay.PaymentClient - Payment gateway Timeout for order 7\n", f.errAt)
		b.WriteString("java.net.SocketTimeoutException: Read timed out\n\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)\n\tat com.shop.pay.PaymentClient.charge(PaymentClient.java:42)\n")
		fmt.Fprintf(&b, "2026-03-01 %s:01.000 INFO  [http-nio-8080-exec-4] c.s.order.OrderController - order 8 accepted\n", f.errAt)
		fixture.WriteFile(t, filepath.Join(dir, "logs", f.name), b.String())
	}
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, "[knowledge]\npaths = []\n\n[[logs]]\nname = \"shop\"\npaths = [\"./logs/*.log\"]\ntimezone = \"UTC\"\n")
	env["SUPERBIZ_CONFIG"] = cfg
	return env
}

// logs inspect --level/--contains shows how an ERROR entry with its trace
// reads wherever it lies in the files (issue 40 #14): the matches of a
// query_logs call over the whole files, newest first across files, with
// their count; an unknown level is a usage error.
func TestLogsInspectFilter(t *testing.T) {
	env := filteredLogsWorkspace(t)
	code, out, errOut := cli(t, env, "logs", "inspect", "shop")
	if code != ExitOK || strings.Contains(out, "ERROR") {
		t.Fatalf("unfiltered: exit %d, stderr %q; the first entries should be INFO only:\n%s", code, errOut, out)
	}
	code, out, errOut = cli(t, env, "logs", "inspect", "shop", "--level", "error", "--entries", "1")
	want := "2 entries match level ERROR; the newest 1, as query_logs returns them:\n  2026-03-01T11:55:00.123Z ERROR "
	if code != ExitOK || !strings.Contains(out, want) || !strings.Contains(out, "Read timed out") || strings.Contains(out, "11:50:00.123Z ERROR") {
		t.Errorf("--level error --entries 1: exit %d, stderr %q; want b.log's entry with its trace under %q:\n%s", code, errOut, want, out)
	}
	code, out, _ = cli(t, env, "logs", "inspect", "shop", "--contains", "gateway TIMEOUT", "-o", "json")
	var res struct {
		Filter  string
		Matched *int
		Entries []struct{ File, TS, Level, Message string }
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &res) != nil || res.Filter != `contains "gateway timeout"` || res.Matched == nil || *res.Matched != 2 ||
		len(res.Entries) != 2 || !strings.HasSuffix(res.Entries[0].File, "b.log") || !strings.HasSuffix(res.Entries[1].File, "a.log") || res.Entries[1].TS != "2026-03-01T11:50:00.123Z" {
		t.Errorf("--contains -o json: exit %d; want both entries, b.log's first, with filter and matched:\n%s", code, out)
	}
	code, out, _ = cli(t, env, "logs", "inspect", "shop", "--level", "warn", "--contains", "timeout")
	if code != ExitOK || !strings.Contains(out, `no entry matches level WARN, contains "timeout" in the files read`) {
		t.Errorf("no match: exit %d:\n%s", code, out)
	}
	code, _, errOut = cli(t, env, "logs", "inspect", "shop", "--level", "fatal")
	if code != ExitUsage || !strings.Contains(errOut, `level "fatal" is not one of ERROR, WARN, INFO, DEBUG`) {
		t.Errorf("--level fatal: exit %d, stderr %q; want a usage error naming the levels", code, errOut)
	}
}
