package metrics

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The schema the model receives states the bound decodeInput enforces.
func TestInputSchemaBounds(t *testing.T) {
	tool := newTool(t, Source{Name: "prom", URL: "http://127.0.0.1:9090"})
	if err := schema.CheckBounds(tool.Definition().Parameters, map[string]int64{"query.maxLength": MaxQuery}); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.Definition().Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Required) != 1 || s.Required[0] != "query" || len(s.Properties["source"].Enum) != 1 || s.Properties["source"].Enum[0] != "prom" {
		t.Errorf("schema: required %v, source enum %v", s.Required, s.Properties["source"].Enum)
	}
}

// Every refused input names what was wrong; accepted ones get their
// canonical form (source resolved, times in UTC, step normalised).
func TestDecodeInput(t *testing.T) {
	tool := newTool(t, Source{Name: "prom", URL: "http://h:9090", MaxWindow: 6 * time.Hour, MaxPoints: 100},
		Source{Name: "vm", URL: "http://h:8428"})
	one := newTool(t, Source{Name: "prom", URL: "http://h:9090", MaxWindow: 6 * time.Hour, MaxPoints: 100})
	tests := []struct {
		name  string
		tool  *Tool
		input string
		want  string // substring of the error; "" = accepted
		canon string // canonical form when accepted
	}{
		{"one source is the default", one, `{"query":"up","since":"1h"}`, "", `{"source":"prom","query":"up","since":"1h"}`},
		{"times to UTC, step normalised", one, `{"query":" up ","start":"2026-01-15T17:00:00+08:00","end":"2026-01-15T18:00:00+08:00","step":"60s"}`, "",
			`{"source":"prom","query":"up","start":"2026-01-15T09:00:00Z","end":"2026-01-15T10:00:00Z","step":"1m"}`},
		{"source required among several", tool, `{"query":"up","since":"1h"}`, "source is required", ""},
		{"unknown source", tool, `{"source":"x","query":"up","since":"1h"}`, `unknown metrics source "x"`, ""},
		{"unknown member", one, `{"query":"up","since":"1h","limit":3}`, "allowed members", ""},
		{"empty query", one, `{"query":"  ","since":"1h"}`, "query is empty", ""},
		{"long query", one, `{"query":"` + strings.Repeat("a", MaxQuery+1) + `","since":"1h"}`, "longer than 2048", ""},
		{"query at the bound", one, `{"query":"` + strings.Repeat("a", MaxQuery) + `","since":"1h"}`, "", ""},
		{"no window", one, `{"query":"up"}`, "a time window is required", ""},
		{"both windows", one, `{"query":"up","since":"1h","start":"2026-01-15T09:00:00Z","end":"2026-01-15T10:00:00Z"}`, "not both", ""},
		{"start without end", one, `{"query":"up","start":"2026-01-15T09:00:00Z"}`, "both start and end", ""},
		{"not a time", one, `{"query":"up","start":"15/01/2026 09:00","end":"2026-01-15T10:00:00Z"}`, "is neither RFC 3339", ""},
		{"end before start", one, `{"query":"up","start":"2026-01-15T10:00:00Z","end":"2026-01-15T09:00:00Z"}`, "not after start", ""},
		{"window over max_window", one, `{"query":"up","start":"2026-01-15T00:00:00Z","end":"2026-01-15T07:00:00Z"}`, "longer than this source's max_window 6h", ""},
		{"since over max_window", one, `{"query":"up","since":"7h"}`, "out of range", ""},
		{"since too short", one, `{"query":"up","since":"30s"}`, "out of range", ""},
		{"since not a duration", one, `{"query":"up","since":"an hour"}`, "not a duration", ""},
		{"step too fine for max_points", one, `{"query":"up","since":"6h","step":"1m"}`, "more than this source's max_points 100: use a step of at least 3m37s", ""},
		{"step at the bound", one, `{"query":"up","since":"6h","step":"3m37s"}`, "", ""},
		{"step below a second", one, `{"query":"up","since":"1h","step":"500ms"}`, "whole number of seconds", ""},
		{"step not a duration", one, `{"query":"up","since":"1h","step":"fast"}`, "not a duration", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.tool.Canonical(json.RawMessage(tt.input))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, tools.ErrInvalidInput) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want INVALID_INPUT containing %q", err, tt.want)
			case tt.canon != "" && string(c.Input) != tt.canon:
				t.Errorf("canonical %s, want %s", c.Input, tt.canon)
			}
		})
	}
}

// The default step is the finest whole-second step within max_points.
func TestAutoStep(t *testing.T) {
	for _, tt := range []struct {
		window    time.Duration
		maxPoints int
		want      time.Duration
	}{
		{30 * time.Minute, 240, 8 * time.Second},
		{30 * time.Minute, 31, 59 * time.Second},
		{24 * time.Hour, 240, 361 * time.Second},
		{10 * time.Second, 240, time.Second},
	} {
		got := autoStep(tt.window, tt.maxPoints)
		if got != tt.want || pointsOf(tt.window, got) > tt.maxPoints || (got > minStep && pointsOf(tt.window, got-time.Second) <= tt.maxPoints) {
			t.Errorf("autoStep(%s, %d) = %s, want %s", tt.window, tt.maxPoints, got, tt.want)
		}
	}
}
