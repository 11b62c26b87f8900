package egress

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// The configured values a program shows (a URL or a DSN from the
// configuration, in an error, in doctor's report) pass these rules: they
// know where a password sits in each form, where Mask knows only shapes.

// URL returns a configured URL with the password of its userinfo replaced
// by Marker; text that does not parse as a URL loses everything before its
// last '@' (a password may itself hold '/' or '@').
func URL(s string) Text { return Text{maskURL(s)} }

func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return maskUserinfo(s)
	}
	if _, has := u.User.Password(); has {
		return u.Scheme + "://" + u.User.Username() + ":" + Marker + "@" + u.Host + u.EscapedPath()
	}
	return s
}

// Userinfo hides whatever precedes the last '@' of a configured value that
// may be a malformed URL (its scheme kept), the user name too.
func Userinfo(s string) Text { return Text{maskUserinfo(s)} }

func maskUserinfo(s string) string {
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
func DSN(dsn, password string) Text { return Text{maskDSN(dsn, password)} }

func maskDSN(dsn, password string) string {
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
func LibPQ(dsn, password string) Text { return Text{maskLibPQ(dsn, password)} }

func maskLibPQ(dsn, password string) string {
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
