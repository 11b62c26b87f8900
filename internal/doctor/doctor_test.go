package doctor

import (
	"encoding/json"
	"testing"
)

// TestResultJSON: the JSON of a result is check, ok, detail, hint; the
// status stays out of it (ok says pass/warn versus fail/skip).
func TestResultJSON(t *testing.T) {
	b, err := json.Marshal([]Result{Warned("c", "d", "h"), Skipped("s", "x")})
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"check":"c","ok":true,"detail":"d","hint":"h"},{"check":"s","ok":false,"detail":"x","hint":""}]`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// TestListedModelsBounded: a doctor line names at most MaxListed
// models and says how many more there are.
func TestListedModelsBounded(t *testing.T) {
	names := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10"}
	if got, want := Listed(names), "m1, m2, m3, m4, m5, m6, m7, m8 and 2 more"; got != want {
		t.Errorf("listedModels = %q, want %q", got, want)
	}
	if got := Listed(names[:2]); got != "m1, m2" {
		t.Errorf("Listed(2) = %q", got)
	}
	if got := Listed(nil); got != "none" {
		t.Errorf("Listed(nil) = %q", got)
	}
}
