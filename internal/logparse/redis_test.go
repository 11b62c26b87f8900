package logparse

import (
	"testing"
	"time"
)

// TestRedisWithoutYear: Redis before 4 writes its stamp without a year
// ("10031:M 07 Sep 10:54:04.957 # …", as in the public sample of
// github.com/redashu/wiproredis's README); the year is inferred and the
// level mark read.
func TestRedisWithoutYear(t *testing.T) {
	tc := TimeCtx{Loc: time.UTC, Year: 2026}
	var r Record
	k := LayoutByName(LayoutRedis).ParseLine([]byte("10031:M 07 Sep 10:54:04.957 # Server started, Redis version 3.2.12"), &tc, &r)
	if got := time.Unix(0, r.TS).UTC().Format(time.RFC3339Nano); k != LineTimed || r.Level != "WARN" || got != "2026-09-07T10:54:04.957Z" || string(r.Msg) != "Server started, Redis version 3.2.12" {
		t.Fatalf("kind %d level %q at %s msg %q", k, r.Level, got, r.Msg)
	}
}
