package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Pick: the only source by default, a named one, and a refusal naming the
// choices when the name is missing among several or unknown.
func TestPick(t *testing.T) {
	for _, tt := range []struct {
		name  string
		names []string
		want  int
		err   string
	}{
		{"", []string{"app"}, 0, ""},
		{" gw ", []string{"app", "gw"}, 1, ""},
		{"", []string{"app", "gw"}, 0, `source is required when several log sources are configured: one of "app", "gw"`},
		{"db", []string{"app", "gw"}, 0, `unknown log source "db": use one of "app", "gw"`},
	} {
		got, err := Pick(tt.name, tt.names, "log source")
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Pick(%q, %q) = %d, %v; want %d", tt.name, tt.names, got, err, tt.want)
		case tt.err != "" && (err == nil || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Pick(%q, %q) error %v, want INVALID_INPUT %q", tt.name, tt.names, err, tt.err)
		}
	}
}

// A context's end has one code for every adapter: a cancel (even wrapped)
// is CANCELLED, never TIMEOUT; a deadline is TIMEOUT; anything else is not
// a context's end.
func TestContextCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, CodeCancelled},
		{fmt.Errorf("scan: %w", context.Canceled), CodeCancelled},
		{context.DeadlineExceeded, CodeTimeout},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), CodeTimeout},
		{errors.New("disk on fire"), ""},
		{nil, ""},
	} {
		if got := ContextCode(tc.err); got != tc.want {
			t.Errorf("ContextCode(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestTallyCount: the named count with its unit, singular for one; nothing
// when the member is missing or not a whole number.
func TestTallyCount(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{`{"row_count":20,"rows":[]}`, "20 rows"},
		{`{"row_count":1}`, "1 row"},
		{`{"row_count":0}`, "0 rows"},
		{`{"rows":[]}`, ""},
		{`{"row_count":null}`, ""},
		{`{"row_count":"20"}`, ""},
		{`{"row_count":2.5}`, ""},
		{`[1]`, ""},
	} {
		if got := TallyCount(json.RawMessage(tc.result), "row_count", "row", "rows"); got != tc.want {
			t.Errorf("TallyCount(%s) = %q, want %q", tc.result, got, tc.want)
		}
	}
}

// TestTallyNumber: three significant digits, whole from 1000 up (999.6
// is 1000, not "1e+03"), exponents only past what fits.
func TestTallyNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.82, "0.82"}, {2.021, "2.02"}, {12.5, "12.5"}, {3, "3"}, {0, "0"}, {-1.25, "-1.25"},
		{999.6, "1000"}, {4823.5, "4824"}, {-25000, "-25000"}, {0.000123, "0.000123"}, {2.5e15, "2.5e+15"},
	} {
		if got := TallyNumber(tc.v); got != tc.want {
			t.Errorf("TallyNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
