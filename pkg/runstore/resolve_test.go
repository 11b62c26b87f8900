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
		// Numbers, in the order the store made the runs.
		{ref: "1", want: "r_aaaaaa111111"},
		{ref: "3", want: "r_bbbbbb333333"},
		{ref: "03", want: "r_bbbbbb333333"},
		{ref: "4", err: "the store's runs are numbered 1 to 3"},
		{ref: "0", err: "the store's runs are numbered 1 to 3"},
		{ref: "+1", err: "not found"},
		{ref: "1", err: "from 6 characters on", session: true},
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

// A run's number is its place in the store: taken at insert whatever code
// inserts the row, never given twice, and resolved before a prefix of
// digits; a store with no runs says so.
func TestRunNumbers(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, err := s.ResolveRun(ctx, "1"); err == nil || !strings.Contains(err.Error(), "no run yet") {
		t.Errorf("a number in an empty store: %v, want no run yet", err)
	}
	// An ID made only of digits, 6 long, is a prefix once no run has that number.
	for _, id := range []string{"r_123456aaaa", "r_x2", "r_x3"} {
		mustRun(t, s, NewRun{ID: id, SessionID: "s_1", Intent: runrecord.IntentDiagnosis})
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO runs (id, session_id, created_at, query, status) VALUES ('r_raw', 's_1', 1, 'q', 'RUNNING')`); err != nil {
		t.Fatal(err)
	}
	runs, err := s.ListRuns(ctx, ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range runs {
		got[r.ID] = r.Number
	}
	want := map[string]int64{"r_123456aaaa": 1, "r_x2": 2, "r_x3": 3, "r_raw": 4}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("%s is number %d, want %d (all: %v)", id, got[id], n, got)
		}
	}
	if id, err := s.ResolveRun(ctx, "123456"); err != nil || id != "r_123456aaaa" {
		t.Errorf("a prefix of 6 digits no number names: %q, %v", id, err)
	}
	if id, err := s.ResolveRun(ctx, "4"); err != nil || id != "r_raw" {
		t.Errorf("4: %q, %v, want the row another writer inserted", id, err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET number = 1 WHERE id = 'r_x2'`); err == nil {
		t.Error("two runs took number 1")
	}
}
