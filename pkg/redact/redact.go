// Package redact holds the masking rules behind pkg/egress, the one door
// every byte leaving the process passes; nothing else imports it (a depguard
// rule in .golangci.yml). It masks credentials (DSN and URL passwords, auth
// headers, cookies, cloud and SaaS tokens, JWTs, private keys, key=value
// secrets, password flags of command lines, the values of secret-named keys).
// Its entry points are the few the policy needs: String and KeepControls for
// text, JSON and CleanJSON for a document, IsSecretKey and Keyed for names.
//
// The rules are compiled once, on first use, into immutable values; a cheap
// literal prefilter decides which rules can possibly match, so ordinary log
// text costs one lower-casing pass and a few substring searches.
package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/termsafe"
)

// Marker replaces every secret value; the key or scheme in front of it is kept
// so a reader still sees what kind of value was there.
const Marker = "[REDACTED]"

// rule is one secret shape: a regexp, the submatch groups holding the secret
// (0 for the whole match), literal triggers one of which must occur in the
// text for the rule to run, and an optional check that rejects false hits.
type rule struct {
	name string
	re   *regexp.Regexp
	// groups are the submatch indexes replaced by Marker when they participate.
	groups []int
	// lower says the triggers are lower-case and are searched in the lower-cased text.
	lower    bool
	triggers []string
	// multiline rules see the whole text; the others run line by line.
	multiline bool
	keep      func(secret string) bool
	// wordStart drops a match that follows an ASCII letter or digit or a
	// byte of notAfter, so the regexp can begin with a literal (which regexp
	// finds fast) instead of a boundary group that makes it try every byte.
	wordStart bool
	notAfter  string
	// window says every match starts at most lead bytes before the first
	// trigger of its line (the trigger is inside the key the regexp begins
	// with), so the regexp skips the text before that.
	window bool
	lead   int
	// matchLower says the regexp is written for the ASCII-lower-cased text
	// and runs on it (same offsets; the secret is cut from the original),
	// which is several times faster than (?i). It needs lower.
	matchLower bool
	// keyed says the triggers are keyTriggers(): String searches for them
	// once for all keyed rules. gate, keyTriggers() too when set, says every
	// trigger holds one of them, so the rule is skipped when none occurs.
	keyed bool
	gate  []string
	// nameOnly says a match is no secret by its key alone (a --min-pass
	// count, Android's wtoken): s is the text searched, start where the
	// match begins, key the match up to its first secret group.
	nameOnly func(s string, start int, key string) bool
}

// keyTriggers are the triggers of the rules keyed by a secret word.
func keyTriggers() []string {
	return append([]string{"pass", "pwd", "secret", "token", "key", "credential"}, cjkKeys...)
}

// cjkKeys are the Chinese words for password, passphrase, token and key
// (simplified and traditional, with the common 秘钥 for 密钥): a key made of
// one of them is secret, as the English words are.
var cjkKeys = []string{"密码", "密碼", "口令", "令牌", "密钥", "密鑰", "秘钥"}

// keyNames are the key words whose value is a secret in key=value, key: value,
// JSON and query-string forms. A key may carry any prefix (db_password,
// X-Api-Key, aws_secret_access_key) because the match only needs its tail.
const keyNames = `passwd|password|passphrase|pwd|secret[_-]?access[_-]?key|secret[_-]?key|secret|access[_-]?token|refresh[_-]?token|session[_-]?token|auth[_-]?token|token|api[_-]?key|apikey|private[_-]?key|credentials?|密码|密碼|口令|令牌|密钥|密鑰|秘钥`

// flagNames are the key words that make a command-line flag's value secret.
const flagNames = `passwd|password|passphrase|pass|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?`

// keyQuote is the quote that may close a key: ", ' or, for JSON held in a
// JSON string, \".
const keyQuote = `(?:\\?["'])`

// keyEnd is an optional closing quote of a key.
const keyEnd = keyQuote + `?`

// escapedValue is a value quoted inside a JSON string (\"value\"); a quote
// inside it is \\\" and any other escape is a backslash and one character.
const escapedValue = `\\"((?:[^"\\\r\n]|\\\\\\"|\\[^"\r\n])*)\\"`

// secretValue is the value after a secret key and its separator, in four
// submatch groups: "double", 'single', \"escaped\" or bare (up to a
// delimiter; a Marker counts as bare so redacted text matches again). A bare
// value never starts with ':', so a PostgreSQL cast (password::int) is no
// key and value.
const secretValue = `(?:"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|` + escapedValue + `|([^\s"'&,;<>(){}\[\]:][^\s"'&,;<>(){}\[\]]*|\[(?:REDACTED|redacted)\]))`

// compiledRules builds the rules on first use, so a process that never
// redacts (`superbiz --help`) does not pay for compiling them at start.
var compiledRules = sync.OnceValue(func() []rule {
	return []rule{
		{
			name:      "private key block",
			re:        regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(.*?)-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(.*))`),
			groups:    []int{1, 2},
			triggers:  []string{"PRIVATE KEY"},
			multiline: true,
			keep:      isMarkerOrEmpty,
		},
		{
			// Classic bodies are 36 characters of [A-Za-z0-9_]; the stateless
			// installation tokens (ghs_APPID_JWT, about 520 characters) carry
			// dots and dashes, so neither the length nor the charset is capped
			// (before the jwt rule, which would mask only the embedded JWT).
			name:     "github token",
			re:       regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|github_pat_[A-Za-z0-9_]{20,})`),
			groups:   []int{0},
			triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		},
		{
			name:     "jwt",
			re:       regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`),
			groups:   []int{0},
			triggers: []string{"eyJ"},
		},
		{
			name:     "slack token",
			re:       regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}`),
			groups:   []int{0},
			triggers: []string{"xox", "xapp-"},
		},
		{
			name:     "aws access key id",
			re:       regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b`),
			groups:   []int{0},
			triggers: []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA"},
		},
		{
			name:     "google api key",
			re:       regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`),
			groups:   []int{0},
			triggers: []string{"AIza"},
		},
		{
			name:     "stripe key",
			re:       regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|\bwhsec_[0-9A-Za-z+/=]{16,}`),
			groups:   []int{0},
			triggers: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"},
		},
		{
			// Authorization: Bearer x / Basic x keeps the scheme; any other scheme
			// (Digest, custom) loses the whole value: up to the closing quote when it
			// is quoted, else to the end of the line.
			name:       "authorization header",
			window:     true,
			re:         regexp.MustCompile(`authorization` + keyEnd + `[ \t]*[:=][ \t]*(?:(?:\\?["'])?(?:basic|bearer|token)\s+([^\s"',;\\]+)|"([^"\r\n]+)|'([^'\r\n]+)|` + escapedValue + `|([^\s"'\\][^\r\n]*))`),
			groups:     []int{1, 2, 3, 4, 5},
			lower:      true,
			matchLower: true,
			triggers:   []string{"authorization"},
			keep:       isMarker,
		},
		{
			name:       "cookie header",
			re:         regexp.MustCompile(`\b(?:set-)?cookie` + keyEnd + `[ \t]*[:=][ \t]*(?:"([^"\r\n]+)|'([^'\r\n]+)|` + escapedValue + `|([^\s"'\\][^\r\n]*))`),
			groups:     []int{1, 2, 3, 4},
			lower:      true,
			matchLower: true,
			triggers:   []string{"cookie"},
			keep:       isMarker,
		},
		{
			// scheme://user:pass@host — postgres, mysql, redis (with or without a
			// user), amqp, mongodb, http(s) and any other scheme. The password
			// runs to the last @ of the authority, so one holding an @ is masked
			// whole (p@ss in u:p@ss@host).
			name:     "url userinfo",
			re:       regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]*:([^\s/"'<>]+)@`),
			groups:   []int{1},
			triggers: []string{"://"},
			keep:     isMarker,
		},
		{
			// Go MySQL driver DSN: user:pass@tcp(host)/db, user:pass@unix(/sock)/db,
			// user:pass@/db. Like the driver, the password ends at the @ that
			// starts the address, so it may hold @ itself (p@ss@tcp(…)).
			name:     "go mysql dsn",
			re:       regexp.MustCompile(`[A-Za-z0-9_.$-]+:([^\s"'<>]+?)@(?:tcp6?|unix|udp)?(?:\(|/)`),
			groups:   []int{1},
			triggers: []string{"@"},
			keep:     isMarker,
		},
		{
			name:       "sql identified by",
			re:         regexp.MustCompile(`\bidentified\s+(?:with\s+\S+\s+)?by\s+(?:password\s+)?'([^']*)'`),
			groups:     []int{1},
			lower:      true,
			matchLower: true,
			triggers:   []string{"identified"},
			keep:       isMarkerOrEmpty,
		},
		{
			// key=value, key: value, "key":"value", 'key': 'value', ?key=value&,
			// JSON inside a JSON string: {\"key\":\"value\"}, the separator
			// URL-encoded (password%3Dx), and prose quoting the value
			// (password is 'x'; an unquoted "password is required" stays).
			name: "key value",
			re: regexp.MustCompile(`(?:` + keyNames + `)[0-9]*` + keyEnd + `(?:[ \t]*(?:[:=]|%3a|%3d)[ \t]*` + secretValue +
				`|[ \t]+is[ \t]+(?:"([^"\r\n]*)"|'([^'\r\n]*)'))`),
			// The triggers sit at most 8 bytes into a key (refresh_token).
			window:     true,
			lead:       8,
			groups:     []int{1, 2, 3, 4, 5, 6},
			lower:      true,
			matchLower: true,
			triggers:   keyTriggers(),
			keyed:      true,
			keep:       isMarkerOrEmpty,
			nameOnly:   handleOrCount,
		},
		{
			// The bare word "pass" as a key (pass=x, db_pass=x, "pass":"x"). It
			// must not end a longer word (bypass=1, compass=N), and the
			// unquoted form needs "=" so prose such as "pass: 3" stays.
			name:       "pass key",
			re:         regexp.MustCompile(`pass(?:` + keyQuote + `[ \t]*[:=][ \t]*|[ \t]*=[ \t]*)` + secretValue),
			groups:     []int{1, 2, 3, 4},
			lower:      true,
			matchLower: true,
			triggers:   []string{"pass=", "pass =", "pass\t", `pass"`, "pass'", `pass\`},
			gate:       keyTriggers(),
			keep:       isMarkerOrEmpty,
			wordStart:  true,
			nameOnly:   quantifiedKey,
		},
		{
			// The bare word "pass" before an unquoted colon (smtp pass: x,
			// db pass:x): masked unless the value is a number, so a count in
			// prose ("tests pass: 12") stays.
			name:       "pass colon",
			re:         regexp.MustCompile(`pass[ \t]*:[ \t]*` + secretValue),
			groups:     []int{1, 2, 3, 4},
			lower:      true,
			matchLower: true,
			triggers:   []string{"pass:", "pass :", "pass\t"},
			gate:       keyTriggers(),
			keep:       func(s string) bool { return isMarkerOrEmpty(s) || isNumber(s) },
			wordStart:  true,
		},
		{
			// A secret-named key and its value separated by blanks only, as
			// shells, env dumps and config files write them: `export
			// MY_SERVICE_DB_PASSWORD hunter2`, `setenv DB_PASSWORD x`, `CONFIG
			// SET requirepass x`, redis.conf's `requirepass x` and `masterauth
			// x`, a properties line `db.password x`. The pair ends its line
			// (a comment may follow), so prose that names a key ("DB_PASSWORD
			// is read at start") stays; a plain word as the key is the next
			// rule's.
			name:     "spaced key",
			re:       regexp.MustCompile(`(?:^[ \t]*(?:(?i:export|setenv|set|declare[ \t]+-x|typeset[ \t]+-x)[ \t]+)?|[ \t;&|](?i:export|setenv|set)[ \t]+)[A-Za-z_][A-Za-z0-9_.-]*[ \t]+(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^\s"'#;]+))[ \t]*(?:#[^\r\n]*)?\r?$`),
			groups:   []int{1, 2, 3},
			lower:    true,
			triggers: append(keyTriggers(), spacedDirectives...),
			keep:     isMarkerOrEmpty,
			nameOnly: notSpacedSecretKey,
		},
		{
			// A plain secret word and a value alone on a line, or after a
			// .netrc login (`password hunter2`, `machine db login app
			// password hunter2`): masked unless the value is a plain word or
			// a number, so a heading or prose ("Password policy", "token
			// 42") stays.
			name:       "spaced word key",
			re:         regexp.MustCompile(`(?:^[ \t]*|\blogin[ \t]+\S+[ \t]+)(?:password|passwd|pass|pwd|passphrase|secret|token)[ \t]+([^\s"'#;]+)[ \t]*\r?$`),
			groups:     []int{1},
			lower:      true,
			matchLower: true,
			triggers:   []string{"pass", "pwd", "secret", "token"},
			keep:       func(s string) bool { return isMarkerOrEmpty(s) || isNumber(s) || plainWord(s) },
		},
		{
			// Redis directives whose value is a password, wherever the line
			// starts (a log prefix, `redis.conf: requirepass x`):
			// requirepass, masterauth, and sentinel's auth-pass after the
			// master's name (sentinel.conf's `sentinel auth-pass mymaster x`,
			// `SENTINEL SET mymaster auth-pass x`). As in the spaced key rule
			// the value ends its line (a comment may follow), so prose that
			// names a directive ("requirepass is not set") stays.
			name:       "redis password directive",
			re:         regexp.MustCompile(`(?:requirepass|masterauth|sentinel[ \t]+auth-pass[ \t]+\S+|sentinel[ \t]+set[ \t]+\S+[ \t]+auth-pass)[ \t]+(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^\s"'#;]+))[ \t]*(?:#[^\r\n]*)?\r?$`),
			groups:     []int{1, 2, 3},
			lower:      true,
			matchLower: true,
			triggers:   []string{"requirepass", "masterauth", "auth-pass"},
			keep:       isMarkerOrEmpty,
			wordStart:  true,
		},
		{
			// A password word and a well-known default password after one
			// blank or more, anywhere on the line (`password changeme`,
			// `keystore pass changeit`): a plain word after "password" is
			// prose as often as not ("password policy", "password reset"),
			// but these are no prose words.
			name:       "default password",
			re:         regexp.MustCompile(`(?:password|passwd|pass|pwd|passphrase)[ \t]+(` + defaultPasswords + `)\b`),
			groups:     []int{1},
			lower:      true,
			matchLower: true,
			triggers:   []string{"pass", "pwd"},
			keep:       isMarkerOrEmpty,
			wordStart:  true,
		},
		{
			// Command-line flags: --password x, --db-password "x", -storepass x,
			// --token=x, and an argument list ["--password", "x"]. A following flag (--password --verbose: prompt) is not
			// a value, and --password-file x names a file, not a secret.
			name:       "secret flag",
			re:         regexp.MustCompile(`--?(?:[a-z0-9]+[-_])*(?:store|key)?(?:` + flagNames + `)(?:[ \t]+|=|["'][ \t]*,[ \t]*["'])(?:"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|([^\s"'-][^\s"']*))`),
			groups:     []int{1, 2, 3},
			lower:      true,
			matchLower: true,
			triggers:   keyTriggers(),
			keyed:      true,
			keep:       isMarkerOrEmpty,
			wordStart:  true,
			notAfter:   "-_",
			window:     true,
			lead:       64, // a long --my-service-db-password prefix
			nameOnly:   quantifiedFlag,
		},
		{
			// The MySQL/MariaDB client's -pPASSWORD (no space: with one, the
			// client prompts and the word is the database), on lines that run
			// such a client. -P (port) is another flag.
			name:      "mysql client password",
			re:        regexp.MustCompile(`-p("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)`),
			groups:    []int{1},
			lower:     true,
			triggers:  []string{"mysql", "mariadb"},
			keep:      func(s string) bool { return s == Marker || s == `"`+Marker+`"` || s == "'"+Marker+"'" },
			wordStart: true,
			notAfter:  "-_=",
		},
		{
			// curl's -u/--user user:password (no password: curl prompts), on
			// lines that run curl; the user name is kept.
			name: "curl user password",
			// -u takes its value with or without a space (-uadmin:x, -u:x).
			re:        regexp.MustCompile(`(?:-u(?:[ \t]+|=)?|--user(?:[ \t]+|=))["']?[^\s:"']*:([^\s"']+)`),
			groups:    []int{1},
			lower:     true,
			triggers:  []string{"curl"},
			keep:      isMarkerOrEmpty,
			wordStart: true,
			notAfter:  "-_",
		},
		{
			// sshpass -p PASSWORD (or -pPASSWORD), on lines that run sshpass.
			name:      "sshpass password",
			re:        regexp.MustCompile(`-p[ \t]*("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)`),
			groups:    []int{1},
			lower:     true,
			triggers:  []string{"sshpass"},
			keep:      func(s string) bool { return s == Marker || s == `"`+Marker+`"` || s == "'"+Marker+"'" },
			wordStart: true,
			notAfter:  "-_=",
		},
		{
			// redis-cli -a PASSWORD (the client warns, but scripts use it),
			// on lines that run redis-cli; -a is no other flag of it.
			name:      "redis-cli password",
			re:        regexp.MustCompile(`-a[ \t]+("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)`),
			groups:    []int{1},
			lower:     true,
			triggers:  []string{"redis-cli"},
			keep:      func(s string) bool { return s == Marker || s == `"`+Marker+`"` || s == "'"+Marker+"'" },
			wordStart: true,
			notAfter:  "-_=",
		},
		{
			// Oracle's user/password@connect_identifier (sqlplus scott/tiger@orcl,
			// CONNECT system/x@//db:1521/XE), on lines that run an Oracle
			// client or connect; the user name is kept.
			name:      "oracle user password",
			re:        regexp.MustCompile(`[a-z][a-z0-9_$#]*/("[^"\r\n]*"|[^\s/@"']+)@`),
			groups:    []int{1},
			lower:     true,
			triggers:  []string{"sqlplus", "sqlldr", "expdp", "impdp", "rman", "conn", "login", "logon"},
			keep:      func(s string) bool { return s == Marker || s == `"`+Marker+`"` },
			wordStart: true,
			notAfter:  "-_./",
		},
		{
			// A Chinese key and its value after a space (令牌 x): a value of
			// ASCII characters only, so prose (密码 错误) stays.
			name:       "cjk key space",
			re:         regexp.MustCompile(`(?:` + strings.Join(cjkKeys, "|") + `)[ \t]+([a-z0-9!#$%*+./:=?@^_~-]+)`),
			groups:     []int{1},
			lower:      true,
			matchLower: true,
			triggers:   cjkKeys,
			keep:       isMarkerOrEmpty,
		},
		{
			// A bare Basic credential outside an Authorization header ("sent
			// Basic dXNlcjpwYXNz"): kept unless it is the base64 of user:password.
			name:     "basic credentials",
			re:       regexp.MustCompile(`\b(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}={0,2})`),
			groups:   []int{1},
			lower:    true,
			triggers: []string{"basic"},
			keep:     func(s string) bool { return !isBasicCredential(s) },
		},
		{
			// A token named in prose ("token 9f8e7d6c5b4a3210", "using token
			// ghx1.Abc…"): a value of at least 8 characters holding a letter
			// and a digit, or mixed case; plain words ("token expired") stay.
			name:       "token word",
			re:         regexp.MustCompile(`\btoken[ \t]+([a-z0-9._~+/-]{8,}=*)`),
			groups:     []int{1},
			lower:      true,
			matchLower: true,
			triggers:   []string{"token ", "token\t"},
			keep:       func(s string) bool { return !looksLikeProseToken(s) },
		},
		{
			// A bare bearer token outside an Authorization header ("using bearer
			// abc123..."). Short or plain words ("bearer token") are kept.
			name:       "bearer token",
			re:         regexp.MustCompile(`\bbearer\s+([a-z0-9._~+/-]+=*)`),
			groups:     []int{1},
			lower:      true,
			matchLower: true,
			triggers:   []string{"bearer"},
			keep:       func(s string) bool { return !looksLikeToken(s) },
		},
	}
}) // immutable once built

func isMarker(s string) bool { return s == Marker }

// isBasicCredential reports whether s is the base64 of user:password, the
// form Basic authentication sends.
func isBasicCredential(s string) bool {
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || !utf8.Valid(b) {
		return false
	}
	colon := false
	for _, r := range string(b) {
		switch {
		case r == ':':
			colon = true
		case r < 0x20 || r == 0x7f:
			return false
		}
	}
	return colon
}

func isMarkerOrEmpty(s string) bool { return s == "" || s == Marker }

// looksLikeToken separates credentials from prose: at least 16 characters
// with a digit, or mixed case.
func looksLikeToken(s string) bool {
	if len(s) < 16 {
		return false
	}
	var digit, upper, lower bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		}
	}
	return digit || (upper && lower)
}

// looksLikeProseToken is looksLikeToken, or a shorter value of at least 8
// characters that mixes letters and digits: a word after "token" in prose.
func looksLikeProseToken(s string) bool {
	if looksLikeToken(s) {
		return true
	}
	var digit, letter bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return len(s) >= 8 && digit && letter
}

// isNumber reports a value made of digits, with an optional sign or point.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' {
			return false
		}
	}
	return true
}

// String returns s with every recognised secret value replaced by Marker,
// keeping keys, schemes, user names and hosts. It is idempotent: redacting a
// redacted string changes nothing. It is the one strength of masking: the
// values of secret-named keys first (Keyed with pairs: JSON members at any
// depth, arrays and objects, escaped JSON, key=value pairs), then every
// secret shape.
//
// Each rule runs only when one of its literal triggers occurs, and then only
// on the lines holding a trigger (the private key rule alone sees the whole
// text), so the regexps work on short inputs. A line whose key is written in
// full-width letters or split by an invisible character (ｐａｓｓｗｏｒｄ＝x,
// pass\u200bword=x) is masked by the same rules over its folded form (see
// fold), which then replaces it.
func String(s string) string {
	s = NewKeyed(true).Text(s)
	s = maskRules(s)
	if hasFoldable(s) {
		s = foldLines(s)
	}
	return s
}

// maskRules is one pass of every rule over s as written.
func maskRules(s string) string {
	var lowered string
	haveLower := false
	keysKnown, keysFound := false, false
	rules := compiledRules()
	for i := range rules {
		r := &rules[i]
		hay := s
		if r.lower {
			if !haveLower {
				lowered, haveLower = asciiLower(s), true
			}
			hay = lowered
		}
		if r.keyed || r.gate != nil {
			if !keysKnown {
				// The keyed and gated rules all search the lower-cased text.
				words := r.gate
				if r.keyed {
					words = r.triggers
				}
				keysFound, keysKnown = containsAny(hay, words), true
			}
			if !keysFound {
				continue
			}
		}
		if !r.keyed && !containsAny(hay, r.triggers) {
			continue
		}
		var out string
		var changed bool
		if r.multiline {
			out, changed = r.applyFrom(s, s, 0)
		} else {
			out, changed = r.applyLines(s, hay)
		}
		if changed {
			s = out
			haveLower, keysKnown = false, false
		}
	}
	return s
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay aligned with s.
func asciiLower(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// applyLines runs r on each line of s that contains a trigger in hay (s or
// its ASCII lower-case form, same offsets), leaving the other lines as they are.
func (r *rule) applyLines(s, hay string) (string, bool) {
	var b strings.Builder
	last := 0 // end of the text already copied to b
	changed := false
	for pos := 0; pos < len(s); {
		at := -1
		for _, t := range r.triggers {
			if k := strings.Index(hay[pos:], t); k >= 0 && (at < 0 || pos+k < at) {
				at = pos + k
			}
		}
		if at < 0 {
			break
		}
		lineStart := strings.LastIndexByte(s[:at], '\n') + 1
		lineEnd := len(s)
		if k := strings.IndexByte(s[at:], '\n'); k >= 0 {
			lineEnd = at + k
		}
		if lineStart < pos {
			lineStart = pos
		}
		from := 0
		if r.window && at-r.lead > lineStart {
			from = at - r.lead - lineStart
		}
		if out, ok := r.applyFrom(s[lineStart:lineEnd], hay[lineStart:lineEnd], from); ok {
			if !changed {
				b.Grow(len(s) + 64)
				changed = true
			}
			b.WriteString(s[last:lineStart])
			b.WriteString(out)
			last = lineEnd
		}
		pos = lineEnd + 1
	}
	if !changed {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// KeepControls masks text that is kept as it was written, control
// characters included (the run store's records, what pkg/egress lets pass):
// like String, but when a control character splits a secret
// ("pass\x11word=x") so the rules miss it, the text is returned cleaned and
// masked instead, since stripping the control would reveal it. Text without
// such a split keeps its control characters.
func KeepControls(s string) string {
	r := String(s)
	if c := termsafe.Strip(r); c != r {
		if m := String(c); m != c {
			return m
		}
	}
	return r
}

// clean strips control sequences first, then masks, so a control character
// inside a secret ("pass\x11word=x") cannot hide it from the rules and
// reveal it once stripped.
func clean(s string) string { return String(termsafe.Strip(s)) }

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// startsWord reports whether a match at i in s may start there (see wordStart).
func (r *rule) startsWord(s string, i int) bool {
	if !r.wordStart || i == 0 {
		return true
	}
	c := s[i-1]
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return false
	}
	return strings.IndexByte(r.notAfter, c) < 0
}

// firstGroup is where the first participating secret group of match m
// starts (the match's end when none does).
func firstGroup(m []int, groups []int) int {
	for _, g := range groups {
		if m[2*g] >= 0 {
			return m[2*g]
		}
	}
	return m[1]
}

// quantifiedFlag reports a flag whose secret word follows a quantifier
// (--min-pass 3): key is the flag as matched, dashes to separator.
func quantifiedFlag(_ string, _ int, key string) bool {
	name := strings.TrimLeft(key, "-")
	if i := strings.IndexAny(name, " \t=\"',"); i >= 0 {
		name = name[:i]
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' })
	return len(words) >= 2 && quantifiers[words[len(words)-2]]
}

// quantifiedKey reports a key whose secret word, at start, follows a
// quantifier and a dash or underscore (--max-pass=5, min_pass=3).
func quantifiedKey(s string, start int, _ string) bool {
	if start < 2 || s[start-1] != '-' && s[start-1] != '_' {
		return false
	}
	i := start - 1
	for i > 0 && asciiLetter(s[i-1]) {
		i--
	}
	return quantifiers[s[i:start-1]]
}

// defaultPasswords are the passwords that products and their documentation
// ship as defaults or examples (changeit: Java keystores; foobared:
// redis.conf; mysecretpassword: the postgres image), which no prose writes
// after a password word.
const defaultPasswords = `changeme|changeit|letmein|foobared|passw0rd|p@ssw0rd|p@ssword|mysecretpassword|trustno1|qwerty`

// spacedDirectives are configuration keys that hold a secret with no
// secret word a key name judges (redis.conf's requirepass and masterauth).
var spacedDirectives = []string{"requirepass", "masterauth"}

// notSpacedSecretKey reports a "spaced key" match whose key (the last word
// before the value) holds no secret, or is a word as prose writes it
// (password, Token), which the "spaced word key" rule judges by its value.
func notSpacedSecretKey(_ string, _ int, key string) bool {
	f := strings.Fields(strings.TrimRight(key, "\"' \t"))
	if len(f) == 0 {
		return true
	}
	name := f[len(f)-1]
	if slices.Contains(spacedDirectives, strings.ToLower(name)) {
		return false
	}
	// A word as prose writes it (password, Token), not as code names a
	// variable (PASSWORD, apiToken).
	prose := plainWord(name) && strings.ToLower(name[1:]) == name[1:]
	return !IsSecretKey(name) || prose
}

// plainWord reports a word of ASCII letters only.
func plainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !asciiLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// handleToken reports "token" glued to one letter before it, at the start
// of a word: Android's object handles (wtoken = AppWindowToken{…}, mToken),
// named in Hungarian notation, not credentials; token=, x-token=,
// access_token= and apptoken= stay secrets.
func handleToken(s string, start int, key string) bool {
	if !strings.HasPrefix(key, "token") || start == 0 || !asciiLetter(s[start-1]) {
		return false
	}
	return start == 1 || !asciiLetter(s[start-2]) && (s[start-2] < '0' || s[start-2] > '9')
}

// handleOrCount is handleToken or quantifiedKey: the key value rule's
// names that hold no secret.
func handleOrCount(s string, start int, key string) bool {
	return handleToken(s, start, key) || quantifiedKey(s, start, key)
}

// asciiLetter reports an ASCII letter.
func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// applyFrom replaces the secret groups of every match of r in s that starts
// at from or later; low is s ASCII-lower-cased (or s itself), searched
// instead of s when r.matchLower.
func (r *rule) applyFrom(s, low string, from int) (string, bool) {
	hay := s
	if r.matchLower {
		hay = low
	}
	matches := r.re.FindAllStringSubmatchIndex(hay[from:], -1)
	if len(matches) == 0 {
		return s, false
	}
	if from > 0 {
		for _, m := range matches {
			for i := range m {
				if m[i] >= 0 {
					m[i] += from
				}
			}
		}
	}
	var b strings.Builder
	last := 0
	changed := false
	for _, m := range matches {
		if !r.startsWord(s, m[0]) || r.nameOnly != nil && r.nameOnly(hay, m[0], hay[m[0]:firstGroup(m, r.groups)]) {
			continue
		}
		for _, g := range r.groups {
			start, end := m[2*g], m[2*g+1]
			if start < 0 || start < last {
				continue
			}
			if r.keep != nil && r.keep(s[start:end]) {
				continue
			}
			if !changed {
				b.Grow(len(s))
				changed = true
			}
			b.WriteString(s[last:start])
			b.WriteString(Marker)
			last = end
		}
	}
	if !changed {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}
