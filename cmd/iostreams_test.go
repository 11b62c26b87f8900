package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// A colour stream starts out with the background $COLORFGBG names, and dark
// when it names none; the terminal is never asked here.
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
		s.Color = true // as on a colour terminal
		if got := s.DarkBackground(); got != c.dark {
			t.Errorf("COLORFGBG=%q: dark %v, want %v", c.colorFGBG, got, c.dark)
		}
	}
}
