package egress

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestWriter: what a Writer prints passed the policy, in every method.
func TestWriter(t *testing.T) {
	const secret = "password=HunterTwoAlpaca9"
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Print(Mask(secret), Const("\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Printf("dial %s: %d tries\n", "postgres://app:HunterTwoAlpaca9@db/shop", 3); err != nil {
		t.Fatal(err)
	}
	j, err := MaskJSON([]byte(`{"token":"HunterTwoAlpaca9","n":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.JSON(j); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w.Stream(), "Authorization: Bearer HunterTwoAlpaca9\n"); err != nil {
		t.Fatal(err)
	}
	want := "password=" + Marker + "\n" +
		"dial postgres://app:" + Marker + "@db/shop: 3 tries\n" +
		"{\n  \"token\": \"" + Marker + "\",\n  \"n\": [\n    1\n  ]\n}\n" +
		"Authorization: Bearer " + Marker + "\n"
	if buf.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", buf.String(), want)
	}
	if strings.Contains(buf.String(), "HunterTwoAlpaca9") {
		t.Error("a secret passed the door")
	}
	var zero Writer
	if !zero.IsZero() || zero.Print(Const("x")) != nil || zero.JSON(j) != nil {
		t.Error("the zero Writer writes nowhere and fails nothing")
	}
}

// TestWriterWriteError names what failed.
func TestWriterWriteError(t *testing.T) {
	w := NewWriter(failing{})
	if err := w.Print(Const("x")); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Print: %v", err)
	}
	if _, err := w.Stream().Write([]byte("x")); err == nil {
		t.Error("Stream hid the write error")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestBuilder gathers our words and masked values.
func TestBuilder(t *testing.T) {
	var b Builder
	b.Const("run ")
	b.Printf("%s · %d calls", "token=HunterTwoAlpaca9", 2)
	b.Add(Const("\n"))
	if got, want := b.Text().String(), "run token="+Marker+" · 2 calls\n"; got != want || b.Len() != len(want) {
		t.Errorf("got %q (%d), want %q", got, b.Len(), want)
	}
}

// TestErrorf: an Errorf error is our words with its arguments masked, passes
// Error as it is (a refusal's "credentials:" is not read as a key), and
// wraps its %w error.
func TestErrorf(t *testing.T) {
	inner := errors.New("dial postgres://app:HunterTwoAlpaca9@db/shop")
	err := Errorf("bodies, which can hold credentials: reading %s failed: %w", "x", inner)
	want := "bodies, which can hold credentials: reading x failed: dial postgres://app:" + Marker + "@db/shop"
	if got := Error(err).String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, inner) {
		t.Error("the %w error is not wrapped")
	}
	if got := Error(Errorf("%d left", 3)).String(); got != "3 left" {
		t.Errorf("got %q", got)
	}
}

// TestSprintfArguments: numbers of named types keep their verbs, bytes are
// text, an error's own text is kept.
func TestSprintfArguments(t *testing.T) {
	type count int
	raw := []byte(`{"password":"HunterTwoAlpaca9"}`)
	got := Sprintf("%03d %s %s", count(7), raw, Errorf("ours: %s", "token=HunterTwoAlpaca9")).String()
	want := `007 {"password":"` + Marker + `"} ours: token=` + Marker
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Mask("line\n").TrimRight("\n").String(); got != "line" {
		t.Errorf("TrimRight: %q", got)
	}
}

func TestWriterWithPolicy(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf).WithPolicy(Policy{}.WithCredential("", "", "StoredTok9Amber"))
	if err := w.Print(Const("answer: "), Mask("StoredTok9Amber and password=x\n")); err != nil {
		t.Fatal(err)
	}
	j, err := MaskJSON([]byte(`{"detail":"dial: StoredTok9Amber refused"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.JSON(j); err != nil {
		t.Fatal(err)
	}
	s := w.Stream()
	if _, err := io.WriteString(s, "log StoredTok9Amber\n"); err != nil {
		t.Fatal(err)
	}
	want := "answer: " + Marker + " and password=" + Marker + "\n{\n  \"detail\": \"dial: " + Marker + " refused\"\n}\nlog " + Marker + "\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
