package egress

import (
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/redact"
)

// SecretName reports whether a key, column or label name names a secret,
// by the policy's one list of names (also Chinese and full-width ones): a
// source that reads names (SQL columns, labels, a key/value row's key) taints
// their values with it.
func SecretName(name string) bool { return redact.IsSecretKey(name) }

// Field is the value to show for a field named key (a header, a label, an
// annotation, a column): Marker when the key names a secret and the value is
// not empty (an empty one stays empty, nothing hides in it), else the value
// through the policy.
func Field(key, value string) Text {
	if redact.IsSecretKey(key) {
		if value == "" {
			return Text{}
		}
		return Text{Marker}
	}
	return Mask(value)
}

// KeyNames is the policy's key-name rule for one answer: the values of
// secret-named JSON members and key=value pairs, remembering each key's
// verdict because the texts of one answer repeat their keys. A source runs
// it before its own processing (grouping log lines into patterns) so a
// secret never shapes what it computes; its output is a string, not a Text,
// because it is not the door: what leaves still passes Mask. Use one per
// answer, not concurrently.
type KeyNames struct{ k *redact.Keyed }

// NewKeyNames starts the key-name rule for one answer.
func NewKeyNames() KeyNames { return KeyNames{redact.NewKeyed(true)} }

// Text masks the values of s's secret-named members and pairs.
func (n KeyNames) Text(s string) string { return n.k.Text(s) }

// Field is Marker for a non-empty value of a secret-named key (or of a
// dotted name one of whose prefixes names a secret), else Text of value.
func (n KeyNames) Field(key, value string) string { return n.k.Field(key, value) }

// CellBytes bounds the text of one cell that Cell reads: a caller shows
// less than this, so a longer value is cut to this prefix before masking (a
// secret member cut open at the end is masked to the end).
const CellBytes = 4 << 10

// Cell masks one cell of a query's answer. A secret cell (of a column named
// or computed like a secret, or the value of a row whose key is a secret
// key) is Marker whole, unless it is NULL or empty. A text cell has the
// values of its JSON members named like a secret masked (at any depth, also
// inside escaped JSON held in a string, which stays valid JSON), then every
// secret shape the policy knows; only its first CellBytes are read and
// returned, and the caller cuts it shorter after masking, since a cut can
// leave half a secret no rule recognises. Any other value is returned as it is.
func Cell(v any, secret bool) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if secret {
			return Field("password", x).s
		}
		return redact.String(redact.NewKeyed(false).Text(textclip.BytePrefix(x, CellBytes)))
	}
	if secret {
		return Marker
	}
	return v
}
