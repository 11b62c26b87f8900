package runstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Short names: an ID, last, last~N, a unique prefix of at least MinPrefix
// characters (with or without r_/s_); an ambiguous prefix lists its
// matches newest first; too short, unknown and past the oldest are
// ErrNotFound; last~x is an error of its own.
func TestResolve(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	for _, r := range []NewRun{
		{ID: "r_aaaaaa111111", SessionID: "s_chat00000001", Intent: runrecord.IntentDiagnosis},
		{ID: "r_aaaaaa222222", SessionID: "s_chat00000002", Intent: runrecord.IntentDiagnosis},
		{ID: "r_bbbbbb333333", SessionID: "s_mcp000000003", Intent: runrecord.IntentToolCall},
	} {
		mustRun(t, s, r)
	}
	for _, tc := range []struct {
		ref, want, err string
		session        bool
	}{
		{ref: "last", want: "r_bbbbbb333333"},
		{ref: "last~0", want: "r_bbbbbb333333"},
		{ref: "last~1", want: "r_aaaaaa222222"},
		{ref: "last~2", want: "r_aaaaaa111111"},
		{ref: "last~3", err: "fewer than 4 runs"},
		{ref: "last~x", err: `after last~ give how many to go back`},
		{ref: "last~-1", err: `after last~ give how many to go back`},
		{ref: "r_aaaaaa222222", want: "r_aaaaaa222222"},
		{ref: "r_bbbbbb", want: "r_bbbbbb333333"},
		{ref: "bbbbbb3", want: "r_bbbbbb333333"},
		{ref: "r_aaaaaa", err: `run prefix "r_aaaaaa" is ambiguous: it names r_aaaaaa222222, r_aaaaaa111111; give more characters`},
		{ref: "r_bbb", err: "from 6 characters on"},
		{ref: "r_cccccc", err: "not found"},
		// Sessions count as --continue does: the MCP server's is left out.
		{ref: "last", want: "s_chat00000002", session: true},
		{ref: "last~1", want: "s_chat00000001", session: true},
		{ref: "s_mcp000", want: "s_mcp000000003", session: true},
		{ref: "chat0000000", err: "session prefix", session: true},
	} {
		resolve := s.ResolveRun
		if tc.session {
			resolve = s.ResolveSession
		}
		got, err := resolve(ctx, tc.ref)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q (session %v): %q, %v; want %q", tc.ref, tc.session, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q (session %v): %q, %v; want an error with %q", tc.ref, tc.session, got, err, tc.err)
		}
	}
	var amb *AmbiguousError
	if _, err := s.ResolveRun(ctx, "aaaaaa"); !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Errorf("an ambiguous prefix: %v, want an *AmbiguousError with 2 matches", err)
	}
	if _, err := s.ResolveRun(ctx, "r_cccccc"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown prefix: %v, want ErrNotFound", err)
	}
}
