package logparse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGeneralStamps: the general reader finds a stamp anywhere in a line's
// head in each common spelling, and the level word near it.
func TestGeneralStamps(t *testing.T) {
	cases := []struct {
		line, ts, level string
	}{
		{"[1] 2026/11/20 09:12:03.123456 [ERR] authentication error", "2026-11-20T09:12:03.123456Z", "ERROR"},
		{"ERROR [main] 2026-11-20 09:12:03,123 CassandraDaemon.java:581 - boom", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"[2026-11-20 09:12:03,123: ERROR/MainProcess] Task failed", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"20-Nov-2026 09:12:03.123 SEVERE [main] o.a.c.Catalina.start failed", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"Nov 20, 2026 9:12:03 PM org.apache.catalina.startup.Catalina start", "2026-11-20T21:12:03Z", ""},
		{"Nov 20, 2026 12:12:03 AM org.apache.catalina.startup.Catalina start", "2026-11-20T00:12:03Z", ""},
		{"2026-11-20  9:12:03 0 [ERROR] InnoDB: error 13", "2026-11-20T09:12:03Z", "ERROR"},
		{"ERROR[11-20|09:12:03.123] Failed to journal", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"INFO [11-20|09:12:03.123] Imported", "2026-11-20T09:12:03.123Z", "INFO"},
		{"[2026-11-20T09:12:03.123+0000] {taskinstance.py:1937} ERROR - Task failed", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"2026-11-20T09:12:03.123Z pid=7 tid=4h5 class=Job jid=b4a1 ERROR: fail", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"2026-11-20T09:12:03.123Z [ERROR] core: failed to create token", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"2026/11/20 09:12:03 ...rs/web/repo/view.go:702:Home() [E] GetBranchCommit failed", "2026-11-20T09:12:03Z", "ERROR"},
		{"E261120 09:12:03.123456 4401 kv/queue.go:1146 timed out", "2026-11-20T09:12:03.123456Z", "ERROR"},
		{"[E 261120 09:12:03 web:1875] Uncaught exception", "2026-11-20T09:12:03Z", "ERROR"},
		{"2026.11.20 09:12:03.123456 [ 301 ] {} <Error> executeQuery: Code: 60", "2026-11-20T09:12:03.123456Z", "ERROR"},
		{"[20-Nov-2026 09:12:03 UTC] PHP Fatal error:  Uncaught PDOException", "2026-11-20T09:12:03Z", "ERROR"},
		{"[2026-11-20 09:12:03] production.CRITICAL: gateway down", "2026-11-20T09:12:03Z", "ERROR"},
		{"[2026-11-20 09:12:03.123][12][error][upstream] no healthy host", "2026-11-20T09:12:03.123Z", "ERROR"},
		{"[1795165923] unbound[1:0] error: can't bind socket", "2026-11-20T09:12:03Z", "ERROR"},
		{"2026-11-20 09:12:03.123456 C | etcdmain: listen failed", "2026-11-20T09:12:03.123456Z", "ERROR"},
		{"2026-11-20 09:12:03,123 [salt.minion      :1137][ERROR   ][412] Error while bringing up minion", "2026-11-20T09:12:03.123Z", "ERROR"},
		// a level word in prose is no level: "error" lower case, far from the stamp
		{"2026/11/20 09:12:03 connect to db failed with error 42", "2026-11-20T09:12:03Z", ""},
		// an upper-case word that is no level is not taken for a zone
		{"20-Nov-2026 09:12:03.123 INFO [main] started", "2026-11-20T09:12:03.123Z", "INFO"},
	}
	l := LayoutByName(LayoutGeneral)
	for _, c := range cases {
		tc := TimeCtx{Loc: time.UTC}
		tc.SetRef(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).UnixNano())
		var r Record
		if k := l.ParseLine([]byte(c.line), &tc, &r); k != LineTimed {
			t.Errorf("%q: kind %d, want timed", c.line, k)
			continue
		}
		if got := time.Unix(0, r.TS).UTC().Format(time.RFC3339Nano); got != c.ts || r.Level != c.level {
			t.Errorf("%q: %s %q, want %s %q", c.line, got, r.Level, c.ts, c.level)
		}
	}
}

// TestGeneralLearnsColumns: once it has learned a file's columns from the
// sample, the general reader takes a stamp only in its column (a stamp in
// a stack frame or a message continues the entry) and the level only from
// its word slot.
func TestGeneralLearnsColumns(t *testing.T) {
	sample := bytes.Split([]byte(`INFO  [main] 2026-11-20 09:00:00,101 CassandraDaemon.java:632 - JVM vendor/version
WARN  [main] 2026-11-20 09:00:01,300 StartupChecks.java:143 - jemalloc missing
ERROR [CompactionExecutor:4] 2026-11-20 09:05:00,500 CassandraDaemon.java:581 - Exception in thread
INFO  [ScheduledTasks:1] 2026-11-20 09:06:00,000 StatusLogger.java:65 - Pool Name`), []byte("\n"))
	tc := TimeCtx{Loc: time.UTC}
	tc.SetRef(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).UnixNano())
	l, ok := DetectLayout(sample, &tc, BuiltinLayouts(), nil)
	if !ok || l.Name != LayoutGeneral {
		t.Fatalf("detected %v %v, want general", l, ok)
	}
	var r Record
	for _, cont := range []string{
		"Caused by: java.io.IOException: sstable written at 2026-11-20 09:04:59,000 is corrupt",
		"\tat org.apache.cassandra.db.Keyspace.apply(Keyspace.java:612) ERROR 2026-11-20 09:05:00,000",
	} {
		if k := l.ParseLine([]byte(cont), &tc, &r); k != LineCont {
			t.Errorf("%q: kind %d under the learned columns, want a continuation", cont, k)
		}
		if k := LayoutByName(LayoutGeneral).ParseLine([]byte(cont), &tc, &r); k == LineCont {
			t.Errorf("%q: the unlearned reader finds no stamp: the check above proves nothing", cont)
		}
	}
	if k := l.ParseLine([]byte("ERROR [MutationStage-2] 2026-11-20 09:07:10,010 StorageProxy.java:1415 - Failed"), &tc, &r); k != LineTimed || r.Level != "ERROR" {
		t.Errorf("kind %d level %q, want a timed ERROR", k, r.Level)
	}
}

// TestGeneralLevelNext: java.util.logging's SimpleFormatter writes the
// level on the line after the stamp; the learned layout says so.
func TestGeneralLevelNext(t *testing.T) {
	sample := bytes.Split([]byte(`Nov 20, 2026 9:00:01 AM org.apache.catalina.startup.Catalina load
INFO: Initialization processed in 812 ms
Nov 20, 2026 9:02:14 AM org.apache.catalina.core.StandardContext startInternal
SEVERE: Context [/shop] startup failed due to previous errors`), []byte("\n"))
	tc := TimeCtx{Loc: time.UTC}
	l, ok := DetectLayout(sample, &tc, BuiltinLayouts(), nil)
	if !ok || l.Name != LayoutGeneral || l.LevelNext == nil {
		t.Fatalf("detected %v %v, want general reading the level on the next line", l, ok)
	}
	if got := l.LevelNext(sample[3]); got != "ERROR" {
		t.Errorf("LevelNext = %q", got)
	}
}

// FuzzParseGeneral: the general reader yields clean text from any line
// (seeded with the corpus' Cassandra sample).
func FuzzParseGeneral(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "logs", "corpus", "cassandra.log"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(line)
	}
	fuzzLayout(f, LayoutByName(LayoutGeneral), "[1] 2026/11/20 09:12:03.123456 [ERR] x", "Nov 20, 2026 9:12:03 PM a b", "E261120 09:12:03.1 1 a.go:1 x")
}
