package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// redactedMark replaces a password wherever a secret-bearing value is shown.
const redactedMark = "***"

// DSN is a database data source name whose password never leaves it by
// accident: every way of printing or encoding it (String, GoString, all fmt
// verbs, JSON, text, slog) shows the redacted form; Reveal is the only way to
// the real value, for the one place that opens the connection.
type DSN struct {
	driver Driver
	raw    string
}

// NewDSN checks raw as a data source name for driver and returns it. The
// error never contains the password, even when raw cannot be parsed.
// For sqlite, raw is a file path (an optional "file:" prefix is removed).
func NewDSN(driver Driver, raw string) (DSN, error) {
	if strings.TrimSpace(raw) == "" {
		return DSN{}, errors.New("empty: write the data source name")
	}
	switch driver {
	case DriverMySQL:
		cfg, err := mysql.ParseDSN(raw)
		if err != nil {
			return DSN{}, errors.New(mysqlDSNProblem(err))
		}
		if !mysqlNets[cfg.Net] {
			return DSN{}, errors.New("not a valid MySQL DSN: the network before the address must be tcp(...) or unix(...); write it as user:password@tcp(host:3306)/dbname")
		}
		return DSN{driver: driver, raw: raw}, nil
	case DriverSQLite:
		p := strings.TrimPrefix(raw, "file:")
		if p == "" || p == ":memory:" || strings.HasPrefix(p, ":memory:") {
			return DSN{}, errors.New("not a SQLite file path (an in-memory database holds no data to diagnose)")
		}
		if strings.ContainsAny(p, "?#") {
			return DSN{}, errors.New("not a plain SQLite file path: remove the ?parameters, superbiz opens the file read-only itself")
		}
		return DSN{driver: driver, raw: p}, nil
	case DriverPostgres:
		// pgconn's own message may quote the DSN (it redacts the password
		// only on a best-effort basis): give fixed advice instead. It also
		// reads the TLS files the DSN names (sslrootcert, sslcert, sslkey).
		if _, err := pgconn.ParseConfig(raw); err != nil {
			return DSN{}, errors.New("not a valid PostgreSQL DSN, or a TLS file it names (sslrootcert, sslcert, sslkey) cannot be read: write it as postgres://user:password@host:5432/dbname?sslmode=require or as keywords host=HOST port=5432 user=USER password=PASSWORD dbname=NAME")
		}
		return DSN{driver: driver, raw: raw}, nil
	default:
		return DSN{}, fmt.Errorf("cannot be checked for driver %q: use mysql, postgres or sqlite", string(driver))
	}
}

// mysqlNets are the networks a MySQL DSN may name; anything else is a typo
// (often a missing '@' that would turn the password into the network name).
var mysqlNets = map[string]bool{"tcp": true, "tcp4": true, "tcp6": true, "unix": true}

// mysqlDSNProblem turns a go-sql-driver parse error into advice. It uses only
// fixed texts: some driver errors echo parts of the DSN, which may hold the password.
func mysqlDSNProblem(err error) string {
	const how = `write it as user:password@tcp(host:3306)/dbname`
	msg := err.Error()
	switch {
	case strings.Contains(msg, "missing the slash"):
		return "not a valid MySQL DSN: the slash before the database name is missing; " + how
	case strings.Contains(msg, "network address not terminated"):
		return "not a valid MySQL DSN: the network address lacks its closing parenthesis; " + how
	case strings.Contains(msg, "escape a param value"):
		return "not a valid MySQL DSN: a parameter value needs URL escaping"
	case strings.Contains(msg, "default addr for network"):
		return "not a valid MySQL DSN: unknown network before the address (did you forget tcp(...)?); " + how
	case strings.Contains(msg, "invalid bool value"):
		return "not a valid MySQL DSN: a boolean parameter is not true or false"
	case strings.Contains(msg, "invalid dbname"):
		return "not a valid MySQL DSN: the database name is not valid URL-escaped text"
	default:
		return "not a valid MySQL DSN: a parameter or the address is malformed; " + how
	}
}

// Reveal returns the real data source name, password included. Call it only
// to open the connection; never print or store the result.
func (d DSN) Reveal() string { return d.raw }

// Driver returns the engine this DSN was checked for.
func (d DSN) Driver() Driver { return d.driver }

// IsZero reports whether no DSN was set.
func (d DSN) IsZero() bool { return d.raw == "" }

// Redacted returns the DSN with its password replaced by ***, the only form
// that may appear in output, logs, prompts and the run store.
func (d DSN) Redacted() string {
	switch d.driver {
	case DriverSQLite:
		return d.raw
	case DriverMySQL:
		return redactMySQL(d.raw)
	case DriverPostgres:
		return redactPostgres(d.raw)
	default:
		if d.raw == "" {
			return ""
		}
		return redactedMark
	}
}

// redactMySQL hides the password the way go-sql-driver splits it:
// user:password@net(addr)/dbname with the last '/' and the last '@' before it.
func redactMySQL(raw string) string {
	cfg, err := mysql.ParseDSN(raw)
	if err != nil || !mysqlNets[cfg.Net] {
		return redactedMark
	}
	if cfg.Passwd == "" {
		return raw
	}
	slash := strings.LastIndexByte(raw, '/')
	if slash < 0 {
		return redactedMark
	}
	at := strings.LastIndexByte(raw[:slash], '@')
	if at < 0 {
		return redactedMark
	}
	colon := strings.IndexByte(raw[:at], ':')
	if colon < 0 {
		return redactedMark
	}
	out := raw[:colon+1] + redactedMark + raw[at:]
	if strings.Contains(out, cfg.Passwd) && len(cfg.Passwd) > 2 {
		return redactedMark
	}
	return out
}

// postgresSecretKeys are the libpq parameters that hold a secret: the
// password and the client key's passphrase.
var postgresSecretKeys = map[string]bool{"password": true, "sslpassword": true}

// redactPostgres hides the secrets of a libpq URL (the userinfo password and
// password/sslpassword query parameters) or keyword DSN (password=... and
// sslpassword=..., quoted or not); anything it cannot take apart, or any
// output still holding the password, is redacted whole.
func redactPostgres(raw string) string {
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return redactedMark
	}
	var out string
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		u, err := url.Parse(raw)
		if err != nil {
			return redactedMark
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), redactedMark)
		}
		q := u.Query()
		for k := range q {
			if postgresSecretKeys[strings.ToLower(k)] {
				q.Set(k, redactedMark)
			}
		}
		u.RawQuery = q.Encode()
		out = strings.ReplaceAll(u.String(), url.QueryEscape(redactedMark), redactedMark)
		out = strings.ReplaceAll(out, url.PathEscape(redactedMark), redactedMark)
	} else {
		out = postgresKeywordRE().ReplaceAllStringFunc(raw, func(kv string) string {
			k, _, _ := strings.Cut(kv, "=")
			if !postgresSecretKeys[strings.ToLower(strings.TrimSpace(k))] {
				return kv
			}
			return strings.TrimSpace(k) + "=" + redactedMark
		})
	}
	if len(cfg.Password) > 2 && strings.Contains(out, cfg.Password) {
		return redactedMark
	}
	return out
}

// postgresKeywordRE matches one keyword=value pair of a libpq keyword DSN,
// the value quoted ('...' with \' and \\ escapes) or bare.
var postgresKeywordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z_]+\s*=\s*(?:'(?:[^'\\]|\\.)*'|[^\s']*)`)
})

// String returns the redacted form.
func (d DSN) String() string { return d.Redacted() }

// GoString keeps %#v redacted.
func (d DSN) GoString() string { return "config.DSN(" + strconv.Quote(d.Redacted()) + ")" }

// Format keeps every fmt verb (%s %v %+v %#v %q %x ...) redacted.
func (d DSN) Format(f fmt.State, verb rune) { formatRedacted(f, verb, d.Redacted(), d.GoString()) }

// MarshalJSON encodes the redacted form so a dumped config holds no password.
func (d DSN) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(d.Redacted())), nil }

// MarshalText encodes the redacted form for text-based encoders (TOML, YAML).
func (d DSN) MarshalText() ([]byte, error) { return []byte(d.Redacted()), nil }

// UnmarshalText keeps the text as an unchecked DSN, redacted as a whole,
// for the TOML decoder; NewDSN checks it once the driver is known.
func (d *DSN) UnmarshalText(text []byte) error {
	*d = DSN{raw: string(text)}
	return nil
}

// LogValue keeps slog output redacted.
func (d DSN) LogValue() slog.Value { return slog.StringValue(d.Redacted()) }

// HostURL is the normalised Ollama base URL. A password in its userinfo is
// redacted in every printed or encoded form; Reveal gives the real URL.
type HostURL struct {
	raw string
}

// ParseHost normalises an Ollama host the way Ollama reads OLLAMA_HOST:
// "host" and "host:port" get http:// (default port 11434); "http://h" gets
// port 80 and "https://h" port 443; a path is kept (a reverse-proxy prefix,
// without its trailing slash). Unlike Ollama it rejects an unknown scheme, a
// bad port, a half-bracketed IPv6 address, a query or a fragment instead of
// guessing. It is the one host parser: the Ollama adapter uses it too.
// Errors never contain a password.
func ParseHost(s string) (HostURL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return HostURL{}, errors.New(`empty: write e.g. "http://127.0.0.1:11434"`)
	}
	defaultPort := "11434"
	scheme, rest, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, rest = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	case isWord(scheme):
		return HostURL{}, fmt.Errorf("scheme %q not supported: use http:// or https://", clip(scheme))
	default:
		return HostURL{}, errors.New(`not a URL: write e.g. "http://127.0.0.1:11434"`)
	}
	// Userinfo ends at the last '@' (a password may hold '/' or '@'); nothing
	// before it is ever echoed in an error.
	var userinfo *url.Userinfo
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		ui := rest[:at]
		rest = rest[at+1:]
		user, pass, hasPass := strings.Cut(ui, ":")
		u, err1 := url.PathUnescape(user)
		p, err2 := url.PathUnescape(pass)
		if err1 != nil || err2 != nil {
			return HostURL{}, errors.New("malformed user information before '@': URL-escape it")
		}
		if hasPass {
			userinfo = url.UserPassword(u, p)
		} else {
			userinfo = url.User(u)
		}
	}
	if strings.ContainsAny(rest, "?#") {
		return HostURL{}, errors.New(`a host must not carry a query or a fragment: write e.g. "http://127.0.0.1:11434"`)
	}
	hostport, path, _ := strings.Cut(rest, "/")
	if strings.HasPrefix(hostport, "[") != strings.Contains(hostport, "]") {
		// "[::1" or "::1]": a bracketed IPv6 address cut short is a typo,
		// never a host to guess at.
		return HostURL{}, fmt.Errorf("invalid host %q: an IPv6 address needs both brackets, e.g. \"http://[::1]:11434\"", clip(hostport))
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if strings.ContainsAny(host, " \t\r\n/?#@[]") {
		return HostURL{}, fmt.Errorf("invalid host name %q: write e.g. \"http://127.0.0.1:11434\"", clip(host))
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return HostURL{}, fmt.Errorf("invalid port %q: use a number between 1 and 65535", clip(port))
	}
	u := &url.URL{Scheme: scheme, User: userinfo, Host: net.JoinHostPort(host, port)}
	if path = strings.TrimSuffix(path, "/"); path != "" {
		u.Path = "/" + path
	}
	if _, err := url.Parse(u.String()); err != nil {
		return HostURL{}, errors.New(`not a valid URL: write e.g. "http://127.0.0.1:11434"`)
	}
	return HostURL{raw: u.String()}, nil
}

// Reveal returns the real URL, credentials included, for the HTTP client only.
func (h HostURL) Reveal() string { return h.raw }

// IsZero reports whether no host was set.
func (h HostURL) IsZero() bool { return h.raw == "" }

// Redacted returns the URL with any password replaced by ***.
func (h HostURL) Redacted() string { return redactURL(h.raw) }

// redactURL hides the password of a URL, or everything before '@' when the
// text does not parse as a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return redactUserinfo(s)
	}
	if _, has := u.User.Password(); has {
		return u.Scheme + "://" + u.User.Username() + ":" + redactedMark + "@" + u.Host + u.EscapedPath()
	}
	return s
}

// redactUserinfo hides whatever precedes the last '@' of a text that may be
// a malformed URL (a password may itself contain '/' or '@').
func redactUserinfo(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !isWord(scheme) {
		scheme, rest, ok = "", s, false
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return s
	}
	out := redactedMark + rest[at:]
	if ok {
		out = scheme + "://" + out
	}
	return out
}

// String returns the redacted form.
func (h HostURL) String() string { return h.Redacted() }

// GoString keeps %#v redacted.
func (h HostURL) GoString() string { return "config.HostURL(" + strconv.Quote(h.Redacted()) + ")" }

// Format keeps every fmt verb redacted.
func (h HostURL) Format(f fmt.State, verb rune) {
	formatRedacted(f, verb, h.Redacted(), h.GoString())
}

// MarshalJSON encodes the redacted form.
func (h HostURL) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(h.Redacted())), nil }

// MarshalText encodes the redacted form.
func (h HostURL) MarshalText() ([]byte, error) { return []byte(h.Redacted()), nil }

// UnmarshalText parses the text with ParseHost, for the TOML decoder.
func (h *HostURL) UnmarshalText(text []byte) error {
	parsed, err := ParseHost(string(text))
	if err != nil {
		return err
	}
	*h = parsed
	return nil
}

// LogValue keeps slog output redacted.
func (h HostURL) LogValue() slog.Value { return slog.StringValue(h.Redacted()) }

// formatRedacted prints the already-redacted text under the caller's verb and
// flags; %#v gets the Go-syntax form.
func formatRedacted(f fmt.State, verb rune, redacted, gostring string) {
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

// isWord reports whether s is a short run of letters, digits, '+', '-' or '.',
// i.e. safe to echo as a URL scheme.
func isWord(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
