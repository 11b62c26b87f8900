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
	if _, err := w.Stream().Write([]byte("x\n")); err == nil {
		t.Error("Stream hid the write error")
	}
	if _, err := w.Screen().Write([]byte("x")); err == nil {
		t.Error("Screen hid the write error")
	}
	held := w.Stream()
	if _, err := held.Write([]byte("x")); err != nil {
		t.Errorf("a held tail is not written yet: %v", err)
	}
	if err := held.Close(); err == nil {
		t.Error("Close hid the write error")
	}
}

// streamCases are texts whose secrets a Stream must mask however a library
// splits them across writes.
var streamCases = []string{
	"login ok password=HunterTwoAlpaca9 user=app\n",
	"dial postgres://app:HunterTwoAlpaca9@db/shop\r\nAuthorization: Bearer HunterTwoAlpaca9abcdef\n",
	`{"level":"INFO","token":{"value":"HunterTwoAlpaca9"}}` + "\nkey ghp_HunterTwoAlpaca9abcdefghijklmnopqrst",
	"frame \x1b[2;1Hexec backup --db-password \x1b[1mHunterTwoAlpaca9\x1b[0m --verbose\x1b[?25l",
}

// A secret split across two writes, at every byte position, is masked as
// if written at once, and nothing is lost: the output equals Mask of the
// whole text (issue 34: each write was masked on its own).
func TestStreamSplitSecret(t *testing.T) {
	splits := 0
	for _, text := range streamCases {
		want := Mask(text).String()
		if strings.Contains(want, "HunterTwoAlpaca9") {
			t.Fatalf("the policy does not mask %q whole: %q", text, want)
		}
		for i := 1; i < len(text); i++ {
			var buf bytes.Buffer
			s := NewWriter(&buf).Stream()
			for _, part := range []string{text[:i], text[i:]} {
				if n, err := io.WriteString(s, part); err != nil || n != len(part) {
					t.Fatalf("write %q: %d, %v", part, n, err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != want {
				t.Errorf("split at %d of %q:\n got %q\nwant %q", i, text, buf.String(), want)
			}
			splits++
		}
	}
	t.Logf("%d splits", splits)
}

// What a terminal must see now is written at once, in order with what the
// Writer prints around it: a line ended by '\r' (a progress bar's redraw),
// a tail ending in a cursor movement or an erase, a Flush, every write of a
// Screen; only a plain tail waits for its line end, Flush or Close.
func TestStreamWritesRedrawsAtOnce(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	s := w.Stream()
	step := func(write, want string) {
		t.Helper()
		if _, err := io.WriteString(s, write); err != nil {
			t.Fatal(err)
		}
		if buf.String() != want {
			t.Errorf("after writing %q the terminal has %q, want %q", write, buf.String(), want)
		}
	}
	step("\r[###   ] 3/8 files", "\r")
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	step("\r", "\r[###   ] 3/8 files\r")
	step("\x1b[2K\x1b[1;1H", "\r[###   ] 3/8 files\r\x1b[2K\x1b[1;1H")
	buf.Reset()
	step("password=Hunter\x1b[1m", "") // colour is no redraw: still held
	step("TwoAlpaca9\x1b[?25l", Mask("password=Hunter\x1b[1mTwoAlpaca9\x1b[?25l").String())
	buf.Reset()
	step("held token=HunterTwoAlpaca9", "")
	if err := w.Print(Const("\r\x1b[K")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Close flushes; the caller flushes before printing beside the stream.
	if got := buf.String(); got != "\r\x1b[Kheld token="+Marker {
		t.Errorf("got %q", got)
	}
	buf.Reset()
	sc := w.Screen()
	if _, err := io.WriteString(sc, "\x1b[H frame's last line token=HunterTwoAlpaca9"); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "\x1b[H frame's last line token="+Marker {
		t.Errorf("a Screen frame: %q", got)
	}
}

// A tail longer than MaxStreamTail is written at once, masked.
func TestStreamTailBound(t *testing.T) {
	var buf bytes.Buffer
	s := NewWriter(&buf).Stream()
	long := "password=HunterTwoAlpaca9 " + strings.Repeat("x", MaxStreamTail)
	if _, err := io.WriteString(s, long); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < MaxStreamTail || strings.Contains(buf.String(), "HunterTwoAlpaca9") {
		t.Errorf("wrote %d bytes of %d", buf.Len(), len(long))
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
