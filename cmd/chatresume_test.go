package cmd

import "testing"

// The resume line stays whole when it fits the terminal or is piped, and
// splits before "resume with:" when it does not, so the terminal never
// wraps it inside the session ID (seen at 80 columns with --demo --db).
func TestResumeFits(t *testing.T) {
	const id = "s_01KBX8Q2M3N4P5R6S7" // as long as runstore makes them
	short := "superbiz chat --session " + id
	long := short + " --demo --db /tmp/superbiz-demo-1234567890/runs.db"
	for _, tc := range []struct {
		name    string
		command string
		cols    int
		want    bool
	}{
		{"piped", long, 0, true},
		{"fits 140", long, 140, true},
		{"wider than 80", long, 80, false},
		{"short at 80", short, 80, false}, // 88 columns
		{"short at 100", short, 100, true},
		{"exactly the width", short, len("session "+id+" · resume with: "+short) - 1, true}, // "·" is 2 bytes, 1 column
		{"one column short", short, len("session "+id+" · resume with: "+short) - 2, false},
	} {
		if got := resumeFits(id, tc.command, tc.cols); got != tc.want {
			t.Errorf("%s: resumeFits(%d columns) = %v, want %v", tc.name, tc.cols, got, tc.want)
		}
	}
}
