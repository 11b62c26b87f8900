package redact

import (
	"fmt"
	"strconv"
)

// SecretMark replaces a credential held in a typed value (Secret, the
// password of a data source name or of a URL) in every printed form; Marker
// is the mark of a secret found in free text.
const SecretMark = "***"

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
	return SecretMark
}

// GoString keeps %#v from showing the value.
func (s Secret) GoString() string { return "redact.Secret(" + strconv.Quote(s.String()) + ")" }

// MarshalJSON encodes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// Format prints the already-redacted text of a secret-bearing value under
// the caller's verb and flags; %#v gets the Go-syntax form. A type that holds
// a credential implements fmt.Formatter with it so no verb shows the value.
func Format(f fmt.State, verb rune, redacted, gostring string) {
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
