package cmd

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A fitted text table cuts only its last column, by display width (a CJK
// character is two columns), so every line stays within the width; unfitted
// (piped) it keeps every cell whole.
func TestWriteTextTableFit(t *testing.T) {
	tb := table{header: []string{"RUN", "QUERY"}, rows: [][]string{
		{"r_1", "订单服务支付超时 504 on the checkout path since noon"},
		{"r_2", "short"},
	}}
	for _, fit := range []int{0, 30} {
		tb.fit = fit
		var b strings.Builder
		if err := writeTextTable(&b, tb); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if fit == 0 {
			if !strings.Contains(b.String(), tb.rows[0][1]) {
				t.Errorf("unfitted table cut a cell:\n%s", b.String())
			}
			continue
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > fit {
				t.Errorf("line of %d columns in a %d-column fit: %q", w, fit, l)
			}
		}
		if !strings.HasSuffix(lines[1], "…") || !strings.HasPrefix(lines[1], "r_1  订单服务") || lines[2] != "r_2  short" {
			t.Errorf("want the long query cut with … and the short one whole:\n%s", b.String())
		}
	}
}
