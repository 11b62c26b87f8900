package window

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// Every accepted form and every refusal, with its message, for the bounds of
// query_logs (since 5m..24h) and of query_metrics (since 1m..max_window).
func TestParse(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	logs := Bounds{MinSince: 5 * time.Minute, MaxSince: 24 * time.Hour, MaxWindow: 6 * time.Hour, Loc: shanghai}
	metrics := Bounds{MinSince: time.Minute, MaxWindow: 24 * time.Hour, Loc: time.UTC}
	for _, tt := range []struct {
		name              string
		b                 Bounds
		start, end, since string
		want              string // canonical start..end or since, or the error's text
	}{
		{"since", logs, "", "", " 30m ", "since 30m"},
		{"since keeps its spelling", metrics, "", "", "90m", "since 90m"},
		{"rfc3339 to utc", logs, "2026-01-15T09:00:00+08:00", "2026-01-15T10:00:00+08:00", "", "2026-01-15T01:00:00Z..2026-01-15T02:00:00Z"},
		{"local layout in the zone", logs, "2026-01-15 09:00:00", "2026-01-15T10:00:00", "", "2026-01-15T01:00:00Z..2026-01-15T02:00:00Z"},
		{"local layout for metrics", metrics, "2026-01-15 09:00:00", "2026-01-15 10:30:00", "", "2026-01-15T09:00:00Z..2026-01-15T10:30:00Z"},
		{"no window", logs, "", "", "", `a time window is required: give since (5m to 24h, e.g. "1h") or start and end`},
		{"no window metrics", metrics, "", "", "", `give since (1m to 24h, e.g. "1h")`},
		{"both", metrics, "2026-01-15T09:00:00Z", "", "1h", "either as start and end or as since, not both"},
		{"start only", metrics, "2026-01-15T09:00:00Z", "", "", "give both start and end"},
		{"not a duration", logs, "", "", "an hour", `since "an hour" is not a duration`},
		{"since too short", logs, "", "", "1m", `since "1m" is out of range: use 5m to 24h`},
		{"since too long", metrics, "", "", "25h", `since "25h" is out of range: use 1m to 24h`},
		{"since over max_window", logs, "", "", "7h", `since "7h" is longer than this source's max_window 6h`},
		{"not a time", metrics, "15/01/2026", "2026-01-15T10:00:00Z", "", `start: "15/01/2026" is neither RFC 3339`},
		{"bad end", metrics, "2026-01-15T09:00:00Z", "10:00", "", `end: "10:00" is neither RFC 3339`},
		{"end before start", metrics, "2026-01-15T10:00:00Z", "2026-01-15T09:00:00Z", "", "is not after start"},
		{"window over max_window", logs, "2026-01-15T00:00:00Z", "2026-01-15T07:00:00Z", "", "window of 7h is longer than this source's max_window 6h"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse(tt.start, tt.end, tt.since, tt.b)
			got := ""
			switch start, end, since := w.Canonical(); {
			case err != nil:
				if !errors.Is(err, tools.ErrInvalidInput) {
					t.Errorf("error %v does not wrap ErrInvalidInput", err)
				}
				got = err.Error()
			case since != "":
				got = "since " + since
			default:
				got = start + ".." + end
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("Parse(%q, %q, %q) = %q, want %q", tt.start, tt.end, tt.since, got, tt.want)
			}
		})
	}
}

// At resolves a relative window at the run's clock; Len is its length.
func TestAtAndLen(t *testing.T) {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	w, err := Parse("", "", "2h", Bounds{MinSince: time.Minute, MaxWindow: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if s, e := w.At(now); !s.Equal(now.Add(-2*time.Hour)) || !e.Equal(now) || w.Len() != 2*time.Hour {
		t.Errorf("At = %s..%s, Len %s", s, e, w.Len())
	}
	w, err = Parse("2026-01-15T09:00:00Z", "2026-01-15T09:30:00Z", "", Bounds{MaxWindow: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := w.At(now); s.Hour() != 9 || w.Len() != 30*time.Minute {
		t.Errorf("absolute At start %s, Len %s", s, w.Len())
	}
}
