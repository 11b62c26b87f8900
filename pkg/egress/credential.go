package egress

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// MinBodySecret is the shortest credential form Credential.Body and
// Credential.Answer replace: a shorter one cannot be told apart from the
// answer's own text (a password "ok" would rewrite every "ok"). Literal
// replaces every form.
const MinBodySecret = 4

// Credential removes one configured credential (a bearer token, or a
// username and password), in every form a server may echo it in, from what
// the server sent back: as written, URL-encoded, as a JSON string's content
// (escaped, and with "/" escaped too), and the base64 (standard, URL-safe,
// padded or not) of the secret and of basic authentication's
// "user:password". The zero value removes nothing.
type Credential struct {
	forms []string // every literal form, longest first
}

// MinTokenBytes is the shortest bearer token or API key NewCredential
// lists: a shorter one (the "x" a user types for a local server) is no
// secret, and scrubbing it would rewrite ordinary words (query_logs with a
// key "e").
const MinTokenBytes = 8

// NewCredential lists the forms of a credential; empty parts, and a token
// shorter than MinTokenBytes, are skipped.
func NewCredential(username, password, token string) Credential {
	if len(token) < MinTokenBytes {
		token = ""
	}
	var out []string
	encoded := func(s string) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			out = append(out, enc.EncodeToString([]byte(s)))
		}
	}
	for _, s := range []string{token, password} {
		if s == "" {
			continue
		}
		out = append(out, s, url.QueryEscape(s), url.PathEscape(s))
		if j, err := json.Marshal(s); err == nil {
			inner := string(j[1 : len(j)-1])
			out = append(out, inner, strings.ReplaceAll(inner, "/", `\/`))
		}
		encoded(s)
	}
	if password != "" {
		encoded(username + ":" + password)
	}
	// Longest first, so a form is replaced before a shorter one inside it.
	slices.SortStableFunc(out, func(x, y string) int { return len(y) - len(x) })
	return Credential{forms: slices.Compact(out)}
}

// Literal replaces every form of the credential in s with Marker, nothing
// else (an error excerpt, however short the form).
func (c Credential) Literal(s string) string {
	for _, f := range c.forms {
		s = strings.ReplaceAll(s, f, Marker)
	}
	return s
}

// Body replaces every form of at least MinBodySecret bytes in a whole
// answer with Marker, before any caller reads it.
func (c Credential) Body(body []byte) []byte {
	for _, f := range c.forms {
		if len(f) >= MinBodySecret && bytes.Contains(body, []byte(f)) {
			body = bytes.ReplaceAll(body, []byte(f), []byte(Marker))
		}
	}
	return body
}

// Answer is Body for one string decoded from an answer read as a stream (a
// form can span two reads of the stream, so the body is not scrubbed), e.g.
// a label value; JSON escapes are already undone, so the forms as written
// match.
func (c Credential) Answer(s string) string {
	for _, f := range c.forms {
		if len(f) >= MinBodySecret {
			s = strings.ReplaceAll(s, f, Marker)
		}
	}
	return s
}
