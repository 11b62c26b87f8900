package alerts

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/pkg/egress"
)

// FuzzDecode feeds Alertmanager answers of any shape to Decode and Query:
// they never panic, and whatever they return is clean (no control
// sequences, valid UTF-8, already redacted), bounded and newest first.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{filepath.Join("..", "..", "testdata", "alerts", "alertmanager-0.25.json"), "testdata/prometheus-v1-alerts.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"fingerprint":"ab","startsAt":"2026-01-01T00:00:00Z","status":{},"labels":{"alertname":"A\u001b]0;x\u0007","token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop"},"annotations":{"description":"password=Hunter2Secret\r\n\u202e"}}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		as, _, err := Decode(body)
		if err != nil {
			return
		}
		for i, a := range as {
			if i > 0 && a.StartsAt.After(as[i-1].StartsAt) {
				t.Fatalf("alert %d starts after alert %d: not newest first", i, i-1)
			}
			if len(a.Labels) > MaxPairs || len(a.Annotations) > MaxPairs {
				t.Fatalf("%d labels, %d annotations: more than %d", len(a.Labels), len(a.Annotations), MaxPairs)
			}
			check := func(what, k, v string, line bool) {
				strip := termsafe.Strip
				if line {
					strip = termsafe.Line
				}
				switch {
				case len(k) > MaxKey || len(v) > MaxValue:
					t.Fatalf("%s %q: %d/%d bytes, over the bounds", what, k, len(k), len(v))
				case !utf8.ValidString(k) || !utf8.ValidString(v):
					t.Fatalf("%s %q: invalid UTF-8", what, k)
				case termsafe.Line(k) != k || strip(v) != v:
					t.Fatalf("%s %q = %q: control characters left", what, k, v)
				case egress.Field(k, v).String() != v && v != "":
					t.Fatalf("%s %q = %q: not redacted", what, k, v)
				}
			}
			for k, v := range a.Labels {
				check("label", k, v, true)
			}
			for k, v := range a.Annotations {
				check("annotation", k, v, false)
			}
			q := Query(a, Clock(a, time.Now()), "", 4096)
			if len(q) > 4096 || !utf8.ValidString(q) {
				t.Fatalf("query of %d bytes, valid UTF-8 %t", len(q), utf8.ValidString(q))
			}
		}
	})
}
