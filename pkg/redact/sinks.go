package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/superbiz/superbiz/internal/textclip"
)

// The entry points, one per kind of sink, all writing Marker:
//
//   - text (messages, observations, queries, runbooks): String, or Clean
//     when the text is shown and must lose its control sequences;
//   - JSON documents (model rounds, tool inputs, observations): JSON, or
//     CleanJSON for what the model or a terminal sees;
//   - headers and other named fields (HTTP headers, labels, annotations):
//     Field, which masks a secret name's whole value;
//   - SQL cells: Cell;
//   - configured values (a URL or a DSN in the configuration): URL,
//     Userinfo and DSN, and Marker for a credential shown at all;
//   - a known credential echoed back by a server: Credential.

// CellBytes bounds the text of one cell that Cell reads: a caller shows
// less than this, so a longer value is cut to this prefix before masking (a
// secret member cut open at the end is masked to the end).
const CellBytes = 4 << 10

// Cell masks one cell of a query's answer. A secret cell (of a column named
// or computed like a secret, or the value of a row whose key is a secret
// key) is Marker whole, unless it is NULL or empty. A text cell has the
// values of its JSON members named like a secret masked (at any depth, also
// inside escaped JSON held in a string, which stays valid JSON), then every
// secret shape String knows; only its first CellBytes are read and
// returned, and the caller cuts it shorter after masking, since a cut can
// leave half a secret no rule recognises. Any other value is returned as it is.
func Cell(v any, secret bool) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if secret {
			return field(true, x, nil)
		}
		return String(NewKeyed(false).Text(textclip.BytePrefix(x, CellBytes)))
	}
	if secret {
		return Marker
	}
	return v
}

// URL returns a configured URL with the password of its userinfo replaced
// by Marker; text that does not parse as a URL loses everything before its
// last '@' (a password may itself hold '/' or '@').
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return Userinfo(s)
	}
	if _, has := u.User.Password(); has {
		return u.Scheme + "://" + u.User.Username() + ":" + Marker + "@" + u.Host + u.EscapedPath()
	}
	return s
}

// Userinfo hides whatever precedes the last '@' of a configured value that
// may be a malformed URL (its scheme kept), the user name too.
func Userinfo(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !isScheme(scheme) {
		scheme, rest, ok = "", s, false
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return s
	}
	out := Marker + rest[at:]
	if ok {
		out = scheme + "://" + out
	}
	return out
}

// isScheme reports whether s is a short run of letters, digits, '+', '-' or
// '.', safe to keep in front of a masked URL.
func isScheme(s string) bool {
	return s != "" && len(s) <= 16 && strings.IndexFunc(s, notSchemeRune) < 0
}

// notSchemeRune reports a rune no URL scheme holds.
func notSchemeRune(r rune) bool {
	return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '+' && r != '-' && r != '.'
}

// DSN masks password, known from a parser, in a data source name of
// the form user:password@net(addr)/dbname, splitting it the way
// go-sql-driver does (the last '/', the last '@' before it, the first ':'
// before that). When the split is unsure, or the password still shows, the
// whole value is Marker; a DSN without password is returned as it is.
func DSN(dsn, password string) string {
	if password == "" {
		return dsn
	}
	slash := strings.LastIndexByte(dsn, '/')
	if slash < 0 {
		return Marker
	}
	at := strings.LastIndexByte(dsn[:slash], '@')
	if at < 0 {
		return Marker
	}
	colon := strings.IndexByte(dsn[:at], ':')
	if colon < 0 {
		return Marker
	}
	out := dsn[:colon+1] + Marker + dsn[at:]
	if strings.Contains(out, password) && len(password) > 2 {
		return Marker
	}
	return out
}

// libpqSecretKeys are the libpq parameters that hold a secret: the
// password and the client key's passphrase.
var libpqSecretKeys = map[string]bool{"password": true, "sslpassword": true}

// LibPQ masks the secrets of a PostgreSQL data source name, a libpq URL
// (the userinfo password and password/sslpassword query parameters) or
// keyword DSN (password=... and sslpassword=..., quoted or not); password
// is the one a parser found. A URL that does not parse, or any output still
// holding the password, is Marker whole.
func LibPQ(dsn, password string) string {
	var out string
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return Marker
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), Marker)
		}
		q := u.Query()
		for k := range q {
			if libpqSecretKeys[strings.ToLower(k)] {
				q.Set(k, Marker)
			}
		}
		u.RawQuery = q.Encode()
		out = strings.ReplaceAll(u.String(), url.QueryEscape(Marker), Marker)
		out = strings.ReplaceAll(out, url.PathEscape(Marker), Marker)
	} else {
		out = libpqKeyword().ReplaceAllStringFunc(dsn, func(kv string) string {
			k, _, _ := strings.Cut(kv, "=")
			if !libpqSecretKeys[strings.ToLower(strings.TrimSpace(k))] {
				return kv
			}
			return strings.TrimSpace(k) + "=" + Marker
		})
	}
	if len(password) > 2 && strings.Contains(out, password) {
		return Marker
	}
	return out
}

// libpqKeyword matches one keyword=value pair of a libpq keyword DSN, the
// value quoted ('...' with \' and \\ escapes) or bare.
var libpqKeyword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z_]+\s*=\s*(?:'(?:[^'\\]|\\.)*'|[^\s']*)`)
})

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
