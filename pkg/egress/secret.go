package egress

import (
	"fmt"
	"strconv"
)

// Secret is a credential read from the environment: every printed or
// encoded form is redacted; Reveal gives the value to the one place that sends it.
type Secret struct{ v string }

// NewSecret wraps a credential.
func NewSecret(v string) Secret { return Secret{v: v} }

// Reveal returns the credential, for the request that carries it.
func (s Secret) Reveal() string { return s.v }

// IsZero reports an unset credential.
func (s Secret) IsZero() bool { return s.v == "" }

// String shows the redacted mark, never the value.
func (s Secret) String() string {
	if s.v == "" {
		return ""
	}
	return Marker
}

// GoString keeps %#v from showing the value.
func (s Secret) GoString() string { return "egress.Secret(" + strconv.Quote(s.String()) + ")" }

// Format keeps every verb from showing the value: without it %d or %x on a
// struct holding a Secret print the field's string itself.
func (s Secret) Format(f fmt.State, verb rune) { Format(f, verb, Text{s: s.String()}, s.GoString()) }

// MarshalJSON encodes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// Format prints the masked text of a secret-bearing value under
// the caller's verb and flags; %#v gets the Go-syntax form. A type that holds
// a credential implements fmt.Formatter with it so no verb shows the value.
func Format(f fmt.State, verb rune, shown Text, gostring string) {
	redacted := shown.s
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, gostring)
		return
	}
	switch verb {
	case 'v', 's', 'q', 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), redacted)
	default:
		fmt.Fprintf(f, "%%!%c(redacted)", verb)
	}
}
