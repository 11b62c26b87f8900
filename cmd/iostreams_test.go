package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// Without a terminal to ask, a colour stream takes its background from
// $COLORFGBG when it names one, and stays dark otherwise.
func TestDarkBackgroundFromCOLORFGBG(t *testing.T) {
	cases := []struct {
		colorFGBG string
		dark      bool
	}{
		{"", true},
		{"0;15", false},
		{"15;0", true},
		{"0;default;7", false},
		{"nonsense", true},
	}
	for _, c := range cases {
		env := map[string]string{"COLORFGBG": c.colorFGBG, "TERM": "xterm-256color"}
		s := newIOStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string { return env[k] })
		s.Color = true // as on a colour terminal; stdin is no terminal, so nothing is asked
		if got := s.DarkBackground(); got != c.dark {
			t.Errorf("COLORFGBG=%q: dark %v, want %v", c.colorFGBG, got, c.dark)
		}
	}
}
