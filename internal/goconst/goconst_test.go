package goconst

import (
	"slices"
	"testing"
)

func TestRead(t *testing.T) {
	cs, err := Read("testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		got  []string
		want []string
	}{
		{"typed", OfType(cs, "Color"), []string{"GREEN", "RED"}},
		{"prefix, test files skipped", WithPrefix(cs, "State"), []string{"OFF", "ON"}},
		{"several names in one spec", WithPrefix(cs, "second"), []string{"b"}},
		{"numbers skipped", WithPrefix(cs, "count"), nil},
	}
	for _, tc := range cases {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if _, err := Read("testdata/missing"); err == nil {
		t.Error("a missing directory gave no error")
	}
}
