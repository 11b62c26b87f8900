package logs

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
)

// loghubDir holds the Loghub 2k samples (github.com/logpai/loghub), kept
// gzip-compressed; testdata/README.md says where they come from and on
// which terms.
var loghubDir = filepath.Join("..", "..", "..", "testdata", "logs", "loghub")

// TestLoghubFigures holds query_logs' figures on the 16 public Loghub 2k
// samples, logs nobody here wrote: every line placed in time (a year-less
// stamp takes the file's write year); in the 9 formats that write a level,
// the ERROR and WARN counts equal a count of their level column (BGL's
// ERROR is 41 ERROR + 347 FATAL + 7 SEVERE, Hadoop's 150 ERROR + 2 FATAL,
// Android's E and W, Apache's [error]); the 7 without one count level_unread
// and answer coverage partial; their matched counts are the level words
// that lead a message (sshd's error:/fatal:, logrotate's ALERT, macOS's
// Error, Thunderbird's 35 "Warning: we …" lines) as the reader reads them
// today, held so that a change shows. A regression in a layout, the level
// reader or the year rule moves a figure.
func TestLoghubFigures(t *testing.T) {
	mtime := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name              string
		entries           int
		errors, errUnread int
		warns, warnUnread int
	}{
		{name: "Android", entries: 2000, errors: 3, warns: 170},
		{name: "Apache", entries: 2000, errors: 595, warns: 0},
		{name: "BGL", entries: 2000, errors: 395, warns: 8},
		{name: "HDFS", entries: 2000, errors: 0, warns: 80},
		{name: "Hadoop", entries: 2000, errors: 152, warns: 808},
		{name: "OpenStack", entries: 2000, errors: 0, warns: 31},
		{name: "Spark", entries: 2000, errors: 0, warns: 0},
		{name: "Windows", entries: 2000, errors: 0, warns: 0},
		{name: "Zookeeper", entries: 2000, errors: 13, warns: 1318},
		{name: "Linux", entries: 2000, errors: 44, warns: 2, errUnread: -1, warnUnread: -1},
		{name: "OpenSSH", entries: 2000, errors: 48, errUnread: -1, warnUnread: -1},
		{name: "Mac", entries: 2000, errors: 15, warns: 3, errUnread: -1, warnUnread: -1},
		{name: "HealthApp", entries: 2000, errUnread: -1, warnUnread: -1},
		{name: "HPC", entries: 2000, errors: 476, errUnread: -1, warnUnread: -1},
		{name: "Thunderbird", entries: 2000, errors: 1, warns: 35, errUnread: -1, warnUnread: -1},
		{name: "Proxifier", entries: 2000, errUnread: -1, warnUnread: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loghubFile(t, tc.name, mtime)
			tool := newTool(t, Source{Name: "app", Paths: []string{p}, MaxWindow: 400000 * time.Hour})
			now := mtime.Add(time.Hour)
			ask := func(level string) Result {
				in := `{"start":"1990-01-01T00:00:00Z","end":"2026-11-20T12:00:00Z","limit":1`
				if level != "" {
					in += fmt.Sprintf(`,"level":%q`, level)
				}
				_, res := run(t, tool, in+"}", now, 1<<20)
				return res
			}
			all := ask("")
			if all.Matched != tc.entries || all.Unparsed != 0 || all.Unplaced != 0 || all.SkippedCount != 0 {
				t.Errorf("every entry: matched %d unparsed %d unplaced %d skipped %d; want %d placed", all.Matched, all.Unparsed, all.Unplaced, all.SkippedCount, tc.entries)
			}
			for _, lv := range []struct {
				level           string
				matched, unread int
			}{{"ERROR", tc.errors, tc.errUnread}, {"WARN", tc.warns, tc.warnUnread}} {
				res := ask(lv.level)
				unreadOK := res.LevelUnread == 0 && res.Coverage.Coverage == coverageData
				if lv.unread < 0 { // a format without a level column: honest
					unreadOK = res.LevelUnread > 0 && res.Coverage.Coverage == "partial"
				}
				if res.Matched != lv.matched || !unreadOK {
					t.Errorf("level %s: matched %d level_unread %d coverage %s; want %d and level_unread %s", lv.level, res.Matched, res.LevelUnread, res.Coverage.Coverage, lv.matched, map[bool]string{true: "> 0, partial", false: "0, data"}[lv.unread < 0])
				}
			}
		})
	}
}

// loghubFile writes the Loghub sample name, uncompressed, into a temporary
// directory with the given write time (the year of year-less stamps).
func loghubFile(t *testing.T, name string, mtime time.Time) string {
	t.Helper()
	return fixture.Gunzip(t, filepath.Join(loghubDir, name+"_2k.log.gz"), filepath.Join(t.TempDir(), name+".log"), mtime)
}
