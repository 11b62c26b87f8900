package logparse

import (
	"testing"
	"time"
)

// TestServerLayoutVariants: the variants of the everyday formats that the
// fixtures do not hold, each read by its layout with its time, level and
// service; and the lines each layout must leave to others.
func TestServerLayoutVariants(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		layout, line   string
		at             time.Time
		level, service string
		msg            string
	}{
		{LayoutPostgres, "2026-11-20 09:00:00 UTC [1234] FATAL:  the database system is shutting down", at, "ERROR", "", "the database system is shutting down"},
		{LayoutPostgres, "2026-11-20 10:00:00.250 CET [77] app@shop ERROR:  deadlock detected", at.Add(time.Hour + 250*time.Millisecond), "ERROR", "", "deadlock detected"},
		{LayoutPostgres, "2026-11-20 09:00:00.000 +03 [9] LOG:  checkpoint starting: time", at.Add(-3 * time.Hour), "INFO", "", "checkpoint starting: time"},
		{LayoutLambda, "[ERROR]\t2026-11-20T09:00:00.000Z\t8f5e2b1c-0a4d-4c3e-9b7a-6d5e4f3a2b1c\tKeyError: 'total'", at, "ERROR", "", "KeyError: 'total'"},
		{LayoutMySQL, "2026-11-20T09:00:00.000000Z 0 [Warning] InnoDB: page_cleaner: 1000ms intended loop took 4213ms.", at, "WARN", "", "InnoDB: page_cleaner: 1000ms intended loop took 4213ms."},
		{LayoutRuby, "D, [2026-11-20T09:00:00.000000 #1] DEBUG -- : cache hit", at, "DEBUG", "", "cache hit"},
		{LayoutGunicorn, "[2026-11-20 10:00:00 +0100] [7] [WARNING] Worker with pid 9 was terminated due to signal 9", at, "WARN", "", "Worker with pid 9 was terminated due to signal 9"},
		{LayoutEnvoy, `[2026-11-20T09:00:00.000Z] "GET /x HTTP/1.1" 0 DC 0 0 12 - "-" "curl/8.5.0" "r-1" "a.svc" "-"`, at, "WARN", "", `"GET /x HTTP/1.1" 0 DC 0 0 12 - "-" "curl/8.5.0" "r-1" "a.svc" "-"`},
	}
	for _, c := range cases {
		tc := TimeCtx{Loc: time.UTC, Year: 2026}
		var r Record
		k := LayoutByName(c.layout).ParseLine([]byte(c.line), &tc, &r)
		if k != LineTimed || r.TS != c.at.UnixNano() || r.Level != c.level || string(r.Service) != c.service || string(r.Msg) != c.msg {
			t.Errorf("%s %q: kind %d at %s level %q service %q msg %q", c.layout, c.line, k, time.Unix(0, r.TS).UTC(), r.Level, r.Service, r.Msg)
		}
	}
	// lines of other formats are left to their layouts
	for layout, line := range map[string]string{
		LayoutPostgres: "2026-11-20 09:00:00.000 ERROR [api] refused",
		LayoutMySQL:    "2026-11-20T09:00:00Z 12 ERROR x",
		LayoutLambda:   "2026-11-20T09:00:00.000Z ERROR x",
		LayoutEnvoy:    `[2026-11-20T09:00:00.000Z] "GET /x HTTP/1.1" abc`,
		LayoutRedis:    "1:Q 20 Nov 2026 09:00:00.000 # x",
	} {
		tc := TimeCtx{Loc: time.UTC, Year: 2026}
		var r Record
		if k := LayoutByName(layout).Parse([]byte(line), &tc, &r); k != LineCont {
			t.Errorf("%s read %q (kind %d)", layout, line, k)
		}
	}
}

// TestShapedLinesAreUnplaced: a line of the HPC or RAS shape that the
// layout cannot read is an entry without a time, never a continuation of
// the entry before it; text of another shape still continues it.
func TestShapedLinesAreUnplaced(t *testing.T) {
	tc := TimeCtx{Loc: time.UTC, Year: 2026}
	var r Record
	for layout, lines := range map[string][2]string{
		LayoutHPC: {"2286759 full partition status 1060340885 x running", "  at frame"},
		LayoutRAS: {"- 1117838570 2005/06/03 R02-M1-N0 broken", "continued text"},
	} {
		if k := LayoutByName(layout).ParseLine([]byte(lines[0]), &tc, &r); k != LineUntimed {
			t.Errorf("%s: %q is kind %d, want untimed", layout, lines[0], k)
		}
		if k := LayoutByName(layout).ParseLine([]byte(lines[1]), &tc, &r); k != LineCont {
			t.Errorf("%s: %q is kind %d, want a continuation", layout, lines[1], k)
		}
	}
}
