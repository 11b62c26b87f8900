package doctor

import (
	"encoding/json"
	"testing"
)

// TestResultJSON: the JSON of a result is check, status (by name), ok,
// detail, hint; ok is false only for a failure; a status reads back.
func TestResultJSON(t *testing.T) {
	in := []Result{Passed("p", "d"), Warned("c", "d", "h"), Failed("f", "d", "h"), Skipped("s", "x")}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"check":"p","status":"ok","ok":true,"detail":"d","hint":""},` +
		`{"check":"c","status":"warn","ok":true,"detail":"d","hint":"h"},` +
		`{"check":"f","status":"fail","ok":false,"detail":"d","hint":"h"},` +
		`{"check":"s","status":"skip","ok":true,"detail":"x","hint":""}]`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back []Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if back[i] != in[i] {
			t.Errorf("round trip %+v, want %+v", back[i], in[i])
		}
	}
	var s Status
	if err := json.Unmarshal([]byte(`"fine"`), &s); err == nil {
		t.Error("an unknown status name decoded without an error")
	}
	if _, err := json.Marshal(Status(9)); err == nil {
		t.Error("an out-of-range status encoded without an error")
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
