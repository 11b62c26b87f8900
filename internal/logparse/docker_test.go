package logparse

import (
	"strings"
	"testing"
	"time"
)

// TestDockerPieces: docker's json-file driver writes a line longer than
// 16 KiB as pieces whose log has no newline, the last one's has: a piece
// is partial (an escaped backslash before an n is no newline), the pieces
// join into one line of the first piece's stream and time, and a line cut
// to its head is an entry of its own without a time, never a continuation.
func TestDockerPieces(t *testing.T) {
	line := func(log, stamp string) string {
		return `{"log":"` + log + `","stream":"stderr","time":"` + stamp + `"}`
	}
	for _, tt := range []struct {
		line    string
		partial bool
	}{
		{line(`whole line\n`, "2026-11-20T14:01:40Z"), false},
		{line(`a piece`, "2026-11-20T14:01:40Z"), true},
		{line(`ends in a backslash and n: \\n`, "2026-11-20T14:01:40Z"), true},
		{line(`ends in a backslash, then a newline: \\\n`, "2026-11-20T14:01:40Z"), false},
		{line(`newline as \u000a`, "2026-11-20T14:01:40Z"), false},
		{`{"log":"no time"}`, false},
		{`not json`, false},
	} {
		if got := dockerPartial([]byte(tt.line)); got != tt.partial {
			t.Errorf("dockerPartial(%s) = %v", tt.line, got)
		}
	}
	entry := line(`{\"level\":\"error\",\"msg\":\"upload \u003c`, "2026-11-20T14:01:40.000000001Z") + "\n" +
		line(`rejected\",`, "2026-11-20T14:01:40.000000002Z") + "\r\n" +
		line(`\"request_id\":\"req-7f3a9\"}\n`, "2026-11-20T14:01:40.000000003Z") + "\n" +
		line(`next line\n`, "2026-11-20T14:01:41Z") + "\n"
	j := dockerJoin([]byte(entry))
	tc := &TimeCtx{Loc: time.UTC}
	var r Record
	if kind := parseDockerJSON(j, tc, &r); kind != LineTimed || r.Level != "ERROR" || string(r.Msg) != "upload <rejected" || r.TS != time.Date(2026, 11, 20, 14, 1, 40, 1, time.UTC).UnixNano() {
		t.Fatalf("joined %s: kind %d level %q msg %q ts %d", j, kind, r.Level, r.Msg, r.TS)
	}
	if !strings.Contains(string(j), `"stream":"stderr"`) || strings.Contains(string(j), "next line") {
		t.Fatalf("joined %s: the first piece's stream, up to the last piece", j)
	}
	if dockerJoin([]byte(line(`whole\n`, "2026-11-20T14:01:40Z")+"\n")) != nil {
		t.Fatal("a whole line was joined")
	}
	cut := line(strings.Repeat("x", MaxDockerLineBytes), "2026-11-20T14:01:40Z")[:MaxDockerLineBytes]
	if kind := parseDockerJSON([]byte(cut), tc, &r); kind != LineUntimed {
		t.Fatalf("a line cut to its head: kind %d; want an entry without a time", kind)
	}
}
