package logparse

import (
	"testing"
	"time"
)

// A container line that no other layout reads is the message, with the
// level word among its first four words (docs/SPEC.md, Kubernetes node
// logs): the third and the fourth word keep their level, in both wrappers;
// a level word fifth or later gives none.
func TestWrappedLevelWordPosition(t *testing.T) {
	tc := &TimeCtx{Loc: time.UTC, Year: 2026}
	const stamp = "2023-01-29T09:41:49.552795573Z"
	for _, tt := range []struct {
		inner, level string
	}{
		{"worker 7 ERROR connection lost", "ERROR"},
		{"pool-3 shard 12 WARN slow flush", "WARN"},
		{"job sync run ok ERROR later", ""},
		{"first ERROR here", "ERROR"},
	} {
		for _, w := range []struct{ layout, line string }{
			{LayoutCRI, stamp + " stdout F " + tt.inner},
			{LayoutDocker, `{"log":"` + tt.inner + `\n","stream":"stdout","time":"` + stamp + `"}`},
		} {
			var r Record
			if k := LayoutByName(w.layout).ParseLine([]byte(w.line), tc, &r); k != LineTimed {
				t.Errorf("%s: kind %d, want timed", w.line, k)
				continue
			}
			if r.Level != tt.level || string(r.Msg) != tt.inner {
				t.Errorf("%s %q: level %q msg %q, want level %q and the whole line as the message", w.layout, tt.inner, r.Level, r.Msg, tt.level)
			}
		}
	}
}
