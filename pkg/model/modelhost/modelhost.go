// Package modelhost is a model server's base URL, parsed the way Ollama
// reads OLLAMA_HOST and kept so that no printed, encoded or logged form of
// it shows a password: the one host parser of the model clients and the
// configuration.
package modelhost

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
)

// URL is a normalised model server base URL. A password in its userinfo is
// redacted in every printed or encoded form; Reveal gives the real URL.
type URL struct {
	raw string
}

// Parse normalises an Ollama host the way Ollama reads OLLAMA_HOST:
// "host" and "host:port" get http:// (default port 11434); "http://h" gets
// port 80 and "https://h" port 443; a path is kept (a reverse-proxy prefix,
// without its trailing slash). Unlike Ollama it rejects an unknown scheme, a
// bad port, a half-bracketed IPv6 address, a query or a fragment instead of
// guessing. It is the one host parser: the Ollama adapter uses it too.
// Errors never contain a password.
func Parse(s string) (URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return URL{}, errors.New(`empty: write e.g. "http://127.0.0.1:11434"`)
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
		return URL{}, fmt.Errorf("scheme %q not supported: use http:// or https://", clip(scheme))
	default:
		return URL{}, errors.New(`not a URL: write e.g. "http://127.0.0.1:11434"`)
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
			return URL{}, errors.New("malformed user information before '@': URL-escape it")
		}
		if hasPass {
			userinfo = url.UserPassword(u, p)
		} else {
			userinfo = url.User(u)
		}
	}
	if strings.ContainsAny(rest, "?#") {
		return URL{}, errors.New(`a host must not carry a query or a fragment: write e.g. "http://127.0.0.1:11434"`)
	}
	hostport, path, _ := strings.Cut(rest, "/")
	if strings.HasPrefix(hostport, "[") != strings.Contains(hostport, "]") {
		// "[::1" or "::1]": a bracketed IPv6 address cut short is a typo,
		// never a host to guess at.
		return URL{}, fmt.Errorf("invalid host %q: an IPv6 address needs both brackets, e.g. \"http://[::1]:11434\"", clip(hostport))
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
		return URL{}, fmt.Errorf("invalid host name %q: write e.g. \"http://127.0.0.1:11434\"", clip(host))
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return URL{}, fmt.Errorf("invalid port %q: use a number between 1 and 65535", clip(port))
	}
	u := &url.URL{Scheme: scheme, User: userinfo, Host: net.JoinHostPort(host, port)}
	if path = strings.TrimSuffix(path, "/"); path != "" {
		u.Path = "/" + path
	}
	if _, err := url.Parse(u.String()); err != nil {
		return URL{}, errors.New(`not a valid URL: write e.g. "http://127.0.0.1:11434"`)
	}
	return URL{raw: u.String()}, nil
}

// Reveal returns the real URL, credentials included, for the HTTP client only.
func (h URL) Reveal() string { return h.raw }

// IsZero reports whether no host was set.
func (h URL) IsZero() bool { return h.raw == "" }

// Redacted returns the URL with any password replaced by egress.Marker.
func (h URL) Redacted() string { return egress.URL(h.raw).String() }

// String returns the redacted form.
func (h URL) String() string { return h.Redacted() }

// GoString keeps %#v redacted.
func (h URL) GoString() string { return "modelhost.URL(" + strconv.Quote(h.Redacted()) + ")" }

// Format keeps every fmt verb redacted.
func (h URL) Format(f fmt.State, verb rune) {
	egress.Format(f, verb, egress.URL(h.raw), h.GoString())
}

// MarshalJSON encodes the redacted form.
func (h URL) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(h.Redacted())), nil }

// MarshalText encodes the redacted form.
func (h URL) MarshalText() ([]byte, error) { return []byte(h.Redacted()), nil }

// UnmarshalText parses the text with Parse, for the TOML decoder.
func (h *URL) UnmarshalText(text []byte) error {
	parsed, err := Parse(string(text))
	if err != nil {
		return err
	}
	*h = parsed
	return nil
}

// LogValue keeps slog output redacted.
func (h URL) LogValue() slog.Value { return slog.StringValue(h.Redacted()) }

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

// maxShown bounds an echoed part of a rejected URL.
const maxShown = 64

// clip keeps an echoed part of a rejected URL to one short line.
func clip(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + textclip.Marker
	}
	return textclip.Bytes(s, maxShown)
}
