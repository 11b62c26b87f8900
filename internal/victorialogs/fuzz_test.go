package victorialogs

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// literals splits a built query into its skeleton (each quoted literal
// replaced by "") and the literals' values, reading quotes as VictoriaLogs
// does (strconv.QuotedPrefix, then strconv.Unquote).
func literals(t *testing.T, q string) (skeleton string, values []string) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(q); {
		if q[i] != '"' {
			b.WriteByte(q[i])
			i++
			continue
		}
		lit, err := strconv.QuotedPrefix(q[i:])
		if err != nil {
			t.Fatalf("an unterminated literal at %d of %q: %v", i, q, err)
		}
		v, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("literal %q does not unquote: %v", lit, err)
		}
		values = append(values, v)
		b.WriteString(`""`)
		i += len(lit)
	}
	return b.String(), values
}

// No value of a query_logs input can change the query's shape: the query
// built from hostile values has the skeleton of the one built from plain
// ones, each value sits whole in its own literal, and each regular
// expression matches its value, case-insensitively, as a whole (service,
// level) or as a substring (a word).
func FuzzLogsQL(f *testing.F) {
	for _, s := range [][3]string{
		{"checkout", "timeout", "level"},
		{`x" or service:*`, `") or (_msg:*`, `lvl"`},
		{"a\\\"b", "\x00\xff", "|"},
		{"日本", ".*", "_msg"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, service, word, field string) {
		build := func(service, word, field string) Filter {
			return Filter{Start: time.Unix(0, 0), End: time.Unix(60, 0), LevelField: field, Levels: []string{"ERROR", word},
				ServiceField: field, Service: service, Words: []string{word, service}}
		}
		if service == "" {
			service = " "
		}
		if !utf8.ValidString(service) || !utf8.ValidString(word) || !utf8.ValidString(field) {
			t.Skip("query_logs' input decoder refuses invalid UTF-8")
		}
		got := build(service, word, field)
		skel, values := literals(t, got.CountQuery())
		plain, _ := literals(t, build("s", "w", "f").CountQuery())
		if skel != plain {
			t.Fatalf("the values changed the query's shape:\n%s\n%s", skel, plain)
		}
		want := []string{field, "", field, "", "", ""}
		if !slices.Equal([]string{values[0], "", values[2], "", "", ""}, want) {
			t.Fatalf("field literals %q, want %q", values, field)
		}
		for _, m := range []struct {
			re, value string
		}{{values[1], "ERROR"}, {values[1], word}, {values[3], service}, {values[4], "x" + word + "y"}, {values[5], "x" + service + "y"}} {
			re, err := regexp.Compile(m.re)
			if err != nil {
				t.Fatalf("literal %q is no regular expression: %v", m.re, err)
			}
			if !re.MatchString(m.value) {
				t.Fatalf("%q does not match %q", m.re, m.value)
			}
		}
	})
}
