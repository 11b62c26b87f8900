package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
)

// Error lists every problem found in one configuration, so a person fixes
// them all in one pass; cmd maps it to exit code 2 ("configuration error").
// Each problem names the key (or flag or variable) and the file.
type Error struct {
	// File is the configuration file the problems are in, "" when none was read.
	File string
	// Problems are the messages, one per problem, never containing a password.
	Problems []string
}

// Error joins the problems; a single one reads as a plain message.
func (e *Error) Error() string {
	switch len(e.Problems) {
	case 0:
		return "invalid configuration"
	case 1:
		return e.Problems[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d configuration problems:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p)
	}
	return b.String()
}

// maxShown bounds how much of a user value a message echoes.
const maxShown = 64

// clip keeps the first line of s, at most maxShown bytes (textclip.Bytes),
// so an echoed value can never drag in a later line of the file (such as a
// DSN); a dropped line is marked like a cut.
func clip(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + textclip.Marker
	}
	return textclip.Bytes(s, maxShown)
}

// show renders a decoded TOML value for a message, clipped.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(clip(x))
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Duration:
		return strconv.Quote(FormatDuration(x))
	default:
		return kind(v)
	}
}

// showHost renders a host value for a message with any userinfo hidden.
func showHost(s string) string {
	return strconv.Quote(clip(egress.Userinfo(strings.TrimSpace(s)).String()))
}

// kind names the TOML type of a decoded value.
func kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	default:
		return fmt.Sprintf("a %T", v)
	}
}
