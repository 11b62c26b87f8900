package logs

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/pkg/egress"
)

func FuzzInput(f *testing.F) {
	tool, err := New([]Source{{Name: "app", Paths: []string{"/nonexistent"}, MaxWindow: 6 * time.Hour}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := tool.Canonical(json.RawMessage(in))
		if err != nil {
			return
		}
		again, err := tool.Canonical(c.Input)
		if err != nil || string(again.Input) != string(c.Input) {
			t.Fatalf("canonical of %q not stable: %s then %s (%v)", in, c.Input, again.Input, err)
		}
	})
}

// FuzzMaskSecrets: the key-name masker never panics, is stable on its own
// output, and a value under a secret JSON key never survives whatever text
// comes before it.
func FuzzMaskSecrets(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `password=x token="y`, `\"secret\":\"z\"`, `'pwd'='q' "token":{"a":[1,"]"]}`, `k=[REDACTED]`, `"x":"\`} {
		f.Add(s, "hunter2value")
	}
	f.Fuzz(func(t *testing.T, prefix, v string) {
		m := egress.NewKeyNames()
		once := m.Text(prefix)
		if again := m.Text(once); again != once {
			t.Fatalf("not stable on %q: %q then %q", prefix, once, again)
		}
		if len(v) < 6 || strings.Contains(prefix, v) || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			return
		}
		if out := m.Text(prefix + `{"password":"` + v + `"}`); strings.Contains(out, v) {
			t.Fatalf("value %q survived after %q: %q", v, prefix, out)
		}
	})
}

// FuzzScanFile: any file content (plain or gzip, damaged or not) is searched
// or skipped with a reason, never a panic or an unexplained failure, and a
// plain file gives the same answer streamed as mapped.
func FuzzScanFile(f *testing.F) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write([]byte("{\"ts\":\"2026-03-14T14:01:00Z\",\"msg\":\"a\"}\n{\"msg\":\"untimed\"}\n")); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()/2])
	f.Add([]byte("2026-03-14 14:01:00 ERROR [x] boom\n\tat a.b\nts=2026-03-14T14:02:00Z password=p msg=m\n"))
	f.Add([]byte("\x00\x00\x00\x01\x02binary\x00"))
	f.Add([]byte("\xef\xbb\xbfMar 14 14:01:00 h sshd[1]: error: x\r\nMar 14 14:02:00 h su: y\r\n"))
	f.Add([]byte("\xff\xfe2\x000\x002\x006\x00-\x000\x003\x00-\x001\x004\x00 \x001\x004\x00:\x000\x001\x00:\x000\x000\x00 \x00E\x00\n\x00"))
	f.Add([]byte("banner\n<34>1 2026-03-14T14:01:00Z h app - - - m\n127.0.0.1 - - [14/Mar/2026:14:01:00 +0000] \"GET / HTTP/1.1\" 500 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q := &query{startNS: base.Add(-48 * time.Hour).UnixNano(), endNS: base.Add(48 * time.Hour).UnixNano(), limit: 5}
		newScanner := func() *scanner {
			s := testScanner(q)
			s.budget = 1 << 20
			return s
		}
		s := newScanner()
		_, err := s.scanFile(fuzzFile(t, data), logparse.BuiltinLayouts())
		var fe *fileError
		if err != nil && !errors.As(err, &fe) && !errors.Is(err, errDecompressedCap) {
			t.Fatalf("unexplained failure: %v", err)
		}
		res := s.acc.result("app", q.startNS, q.endNS)
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		st := newScanner()
		_, errS := st.scanStream(bytes.NewReader(data), logparse.BuiltinLayouts())
		if (err == nil) != (errS == nil) {
			t.Fatalf("mapped err %v, streamed err %v", err, errS)
		}
		rs := st.acc.result("app", q.startNS, q.endNS)
		if rs.Matched != res.Matched || rs.Unparsed != res.Unparsed {
			t.Fatalf("mapped %d/%d, streamed %d/%d", res.Matched, res.Unparsed, rs.Matched, rs.Unparsed)
		}
	})
}

// FuzzCondense: whatever an entry's continuation holds, its condensed text
// stays within its bound and keeps its head's start.
func FuzzCondense(f *testing.F) {
	f.Add([]byte("head"), []byte("java.lang.X: y\n\tat a.b(C.java:1)\nCaused by: z.Q: inner\n\t... 3 more\n"))
	f.Add([]byte("boom"), []byte("panic: x\n\ngoroutine 1 [running]:\nmain.f()\n\t/a.go:1 +0x1\n"))
	f.Add([]byte(""), []byte("Traceback (most recent call last):\n  File \"a\", line 1\nE: e\n\nDuring handling of the above exception, another exception occurred:\n\nF: f\n"))
	f.Fuzz(func(t *testing.T, head, cont []byte) {
		c := condense(head, cont)
		bound := maxMessage
		if c.chain {
			bound = maxChainMessage
		}
		if len(c.text) > max(bound, len(bytes.TrimRight(head, " \r\n"))) {
			t.Fatalf("condensed %d bytes, bound %d", len(c.text), bound)
		}
	})
}
