package canary

import "testing"

// Secrets finds the bare secret of every shape of the corpus, and nothing
// in a line without one.
func TestSecrets(t *testing.T) {
	c := Corpus("07")
	got := Secrets(append(Lines(c), "no canary here"))
	for i, x := range c {
		if got[i] != x.Secret {
			t.Errorf("%s: got %q, want %q", x.Shape, got[i], x.Secret)
		}
	}
	if got[len(c)] != "" {
		t.Errorf("a line without a canary gave %q", got[len(c)])
	}
}
