package model

import "testing"

func TestReplaceToolCallIDs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// The adapter's call_<n> and Ollama's call_ plus 8 of [a-z0-9].
		{"see call_1 and call_12", "see X and X"},
		{"(call_ab12cd34)", "(X)"},
		// Other shapes are words, not IDs.
		{"call_ABCDEFGH call_abc call_ab12cd345 recall_12 call_", "call_ABCDEFGH call_abc call_ab12cd345 recall_12 call_"},
	} {
		if got := ReplaceToolCallIDs(tc.in, "X"); got != tc.want {
			t.Errorf("ReplaceToolCallIDs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
