package sqlquery

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// peakRSS resets the process's peak resident size (Linux clear_refs) and
// returns a function reporting how far the peak rose above the size at
// reset, in bytes; ok is false where /proc does not offer it.
func peakRSS(t *testing.T) (rise func() int64, ok bool) {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return nil, false
	}
	base, ok := procStatusKB("VmRSS")
	if !ok {
		return nil, false
	}
	return func() int64 {
		hwm, _ := procStatusKB("VmHWM")
		return (hwm - base) << 10
	}, true
}

func procStatusKB(field string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// maxBombRise is far above what a capped statement needs (a few values of
// MaxSQLiteValueBytes) and far below the gigabytes an uncapped one takes.
const maxBombRise = 768 << 20

// Result-building SQL on SQLite ends by its real mechanism: the value-length
// limit (named in the error) or the time limit interrupting the statement
// (named too, never MariaDB's KILL QUERY), with bounded memory.
func TestSQLiteBombs(t *testing.T) {
	path := sqliteFixture(t)
	tool, err := New([]Database{{Name: "orders", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, path), Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	const (
		lengthLimit = "SQLITE_LIMIT_LENGTH"
		interrupted = "sqlite3_interrupt"
		refused     = "refused"
	)
	bombs := []struct {
		name, sql string
		code      string
		mechanism string
	}{
		{"printf width", "SELECT printf('%.*c', 900000000, 'x')", tools.CodeInvalidInput, lengthLimit},
		{"format width", "SELECT format('%900000000d', 1)", tools.CodeInvalidInput, lengthLimit},
		{"replace growth", "SELECT length(replace(replace(printf('%.*c', 1000000, 'x'), 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'))", tools.CodeInvalidInput, lengthLimit},
		{"concat doubling", "WITH RECURSIVE c(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, concat(s, s) FROM c WHERE n < 40) SELECT max(length(s)) FROM c", tools.CodeInvalidInput, lengthLimit},
		{"group_concat", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT length(group_concat(printf('%.*c', 10000, 'x'))) FROM c", tools.CodeInvalidInput, lengthLimit},
		{"hex growth", "SELECT length(hex(hex(hex(printf('%.*c', 1000000, 'x')))))", tools.CodeInvalidInput, lengthLimit},
		{"recursive distinct", "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT n + 1 FROM c) SELECT count(*) FROM c", tools.CodeTimeout, interrupted},
		{"recursive sort", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n, printf('%.*c', 10000, 'x') AS pad FROM c ORDER BY pad DESC, n LIMIT 1", tools.CodeTimeout, interrupted},
		{"cross join", "SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e, orders f, orders g, orders h, orders i, orders j, orders k, orders l", tools.CodeTimeout, interrupted},
		{"zeroblob", "SELECT zeroblob(900000000)", tools.CodeNotReadOnly, refused},
		{"randomblob", "SELECT hex(randomblob(900000000))", tools.CodeNotReadOnly, refused},
	}
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			rise, haveRSS := peakRSS(t)
			in, _ := json.Marshal(map[string]any{"sql": b.sql})
			start := time.Now()
			_, out := run(t, tool, string(in), 8192)
			elapsed := time.Since(start)
			code, mechanism := b.code, b.mechanism
			// A growth bomb is stopped by whichever bound it reaches first: on
			// a slow or loaded machine (the race detector, a busy CI) that can
			// be the 1 s limit before the length limit. Either way the error
			// must name the bound that fired, and memory stays bounded below.
			if mechanism == lengthLimit && out.ErrorCode == tools.CodeTimeout {
				code, mechanism = tools.CodeTimeout, interrupted
			}
			if out.Status != tools.StatusError || out.ErrorCode != code {
				t.Fatalf("got %s/%s (%v), want ERROR/%s", out.Status, out.ErrorCode, out.Detail, b.code)
			}
			detail := out.Detail.Error()
			if mechanism != refused && !strings.Contains(detail, mechanism) {
				t.Errorf("detail %q does not name %s", detail, mechanism)
			}
			if strings.Contains(detail, "KILL QUERY") {
				t.Errorf("detail %q names MariaDB's mechanism on SQLite", detail)
			}
			values := map[string]any{"engine": "sqlite", "outcome": out.ErrorCode, "mechanism": mechanism, "elapsed_ms": elapsed.Milliseconds()}
			if haveRSS {
				r := rise()
				values["peak_rss_rise_mb"] = r >> 20
				if r > maxBombRise {
					t.Errorf("peak RSS rose by %d MiB, over %d MiB", r>>20, maxBombRise>>20)
				}
			}
			reliability.Record(t, reliability.SectionBombs, "query_mysql sqlite: "+b.name, values)
			t.Logf("%s: %s in %s, %v", b.name, out.ErrorCode, elapsed.Round(time.Millisecond), values["peak_rss_rise_mb"])
		})
	}
}

// The same kind of statements on MariaDB end by the server's bounds:
// max_allowed_packet caps a built string (the answer is NULL, not gigabytes),
// max_recursive_iterations a recursive CTE, and the time limits a runaway read.
func TestMariaDBBombs(t *testing.T) {
	tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_DSN", time.Second)
	bombs := []struct {
		name, sql string
		status    tools.EvidenceStatus
		code      string
		null      bool // the answer is one NULL cell
	}{
		{"rpad width", "SELECT LENGTH(RPAD('x', 900000000, 'x')) AS n", tools.EvidenceFound, "", true},
		{"lpad width", "SELECT LENGTH(LPAD('x', 900000000, 'x')) AS n", tools.EvidenceFound, "", true},
		{"recursive distinct", "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT n + 1 FROM c) SELECT COUNT(*) FROM c", tools.EvidenceFound, "", false},
		{"cross join", "SELECT COUNT(*) FROM information_schema.columns a, information_schema.columns b, information_schema.columns c", tools.StatusError, tools.CodeTimeout, false},
	}
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			rise, haveRSS := peakRSS(t)
			start := time.Now()
			out := execute(t, tool, b.sql, 20)
			elapsed := time.Since(start)
			if out.Status != b.status || out.ErrorCode != b.code {
				t.Fatalf("got %s/%s (%v), want %s/%s", out.Status, out.ErrorCode, out.Detail, b.status, b.code)
			}
			if res, ok := out.Result.(Result); ok && b.null && (len(res.Rows) != 1 || res.Rows[0][0] != nil) {
				t.Fatalf("a string over max_allowed_packet was built: %v", res.Rows)
			}
			outcome := string(out.Status)
			if out.ErrorCode != "" {
				outcome = out.ErrorCode
			}
			values := map[string]any{"engine": "mariadb", "outcome": outcome, "elapsed_ms": elapsed.Milliseconds()}
			if haveRSS {
				values["client_peak_rss_rise_mb"] = rise() >> 20
			}
			reliability.Record(t, reliability.SectionBombs, "query_mysql mariadb: "+b.name, values)
		})
	}
}
