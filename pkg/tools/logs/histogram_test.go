package logs

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHistogram counts matched entries per bucket over the window, oldest
// first, with empty buckets as zeros and the filters applied first.
func TestHistogram(t *testing.T) {
	var b strings.Builder
	// minute offsets of ERROR entries from base, plus INFO noise every minute
	errs := []int{0, 0, 3, 7, 7, 7, 8, 29}
	for m := 0; m < 30; m++ {
		fmt.Fprintf(&b, "ts=%s level=INFO service=order msg=tick\n", base.Add(time.Duration(m)*time.Minute+10*time.Second).Format(time.RFC3339))
		for _, e := range errs {
			if e == m {
				fmt.Fprintf(&b, "ts=%s level=ERROR service=order msg=\"db timeout\"\n", base.Add(time.Duration(m)*time.Minute+20*time.Second).Format(time.RFC3339))
			}
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "a.log", b.String(), false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}})
	start, end := base.Format(time.RFC3339), base.Add(30*time.Minute).Format(time.RFC3339)
	cases := []struct {
		name, in string
		every    string
		want     []int
	}{
		{"per minute", `{"start":"` + start + `","end":"` + end + `","level":"ERROR","histogram":"1m"}`, "1m",
			[]int{2, 0, 0, 1, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"per 5 minutes", `{"start":"` + start + `","end":"` + end + `","level":"error","histogram":"5m"}`, "5m", []int{3, 4, 0, 0, 0, 1}},
		{"every entry", `{"start":"` + start + `","end":"` + end + `","histogram":"10m"}`, "10m", []int{10 + 7, 10, 10 + 1}},
		{"7m does not divide the window", `{"start":"` + start + `","end":"` + end + `","level":"ERROR","histogram":"7m"}`, "7m", []int{3, 4, 0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, res := run(t, tool, c.in, base.Add(time.Hour), 0)
			h := res.Histogram
			if h == nil {
				t.Fatalf("no histogram in %+v", res)
			}
			if h.Every != c.every || !slices.Equal(h.Counts, c.want) {
				t.Errorf("histogram every %s counts %v, want %s %v", h.Every, h.Counts, c.every, c.want)
			}
			if got, _ := time.Parse(time.RFC3339, h.Start); !got.Equal(base) {
				t.Errorf("start %s, want %s", h.Start, base)
			}
			sum := 0
			for _, n := range h.Counts {
				sum += n
			}
			if sum != res.Matched {
				t.Errorf("histogram sums to %d, matched %d", sum, res.Matched)
			}
		})
	}
	// a call without histogram has none
	_, res := run(t, tool, `{"since":"1h"}`, base.Add(30*time.Minute), 0)
	if res.Histogram != nil {
		t.Errorf("histogram without asking: %+v", res.Histogram)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "histogram") {
		t.Errorf("histogram member without asking: %s", raw)
	}
}

// TestHistogramInput refuses bucket lengths outside the bounds with a reason.
func TestHistogramInput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.log", "ts="+base.Format(time.RFC3339)+" level=INFO msg=x\n", false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}, MaxWindow: 24 * time.Hour})
	for in, want := range map[string]string{
		`{"since":"1h","histogram":"soon"}`:     "not a duration",
		`{"since":"1h","histogram":"30s"}`:      "out of range",
		`{"since":"1h","histogram":"90s"}`:      "out of range",
		`{"since":"2h","histogram":"2h"}`:       "out of range",
		`{"since":"24h","histogram":"1m"}`:      "1440 buckets",
		`{"since":"1h","histogram":"1m","x":1}`: "allowed members",
	} {
		_, err := tool.Canonical(json.RawMessage(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", in, err, want)
		}
	}
	c, err := tool.Canonical(json.RawMessage(`{"since":"6h","histogram":" 1m0s "}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Input), `"histogram":"1m"`) || !strings.Contains(c.Summary, "histogram 1m") {
		t.Errorf("canonical %s / %q", c.Input, c.Summary)
	}
}
