package logparse

import (
	"strings"
	"testing"
	"time"
)

// A bracketed name may hold brackets of its own: ZooKeeper's thread
// "[QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774]"
// (Loghub's Zookeeper sample)
// is one name, log4j's THREAD:CLASS@LINE; cut at the first "]", the name
// was "QuorumPeer[myid=1" and the message began with the rest of the
// bracket.
func TestNestedBracketName(t *testing.T) {
	for _, tc := range []struct{ line, fields, msg string }{
		{"2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774] - Notification time out: 3200",
			"thread=QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181 class=FastLeaderElection", "Notification time out: 3200"},
		{"2015-07-29 19:04:29,071 - WARN  [SendWorker:188978561024:QuorumCnxManager$SendWorker@688] - Send worker leaving thread",
			"thread=SendWorker:188978561024 class=QuorumCnxManager$SendWorker", "Send worker leaving thread"},
	} {
		var r Record
		tcx := TimeCtx{Loc: time.UTC, Year: 2026}
		if k := parseText([]byte(tc.line), &tcx, &r); k != LineTimed {
			t.Fatalf("%q: kind %v", tc.line, k)
		}
		var fields []string
		for _, f := range r.Fields {
			fields = append(fields, string(f.Key)+"="+string(f.Val))
		}
		if got := string(r.Msg); got != tc.msg || strings.Join(fields, " ") != tc.fields || r.Level == "" {
			t.Errorf("%q:\n message %q, fields %q, level %q\nwant message %q and fields %q", tc.line, got, fields, r.Level, tc.msg, tc.fields)
		}
	}
}
