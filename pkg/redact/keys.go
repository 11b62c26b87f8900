package redact

import (
	"strings"
	"unicode"
)

// secretLastWords are the words that make a key secret when the key ends with
// them: "db_password", "X-Api-Key" (…key after api), "headers.Authorization".
var secretLastWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "passphrase": true,
	"secret": true, "token": true, "authorization": true, "cookie": true,
	"credential": true, "credentials": true, "apikey": true, "privatekey": true, "auth": true,
	"secretkey": true, "accesskey": true, "dsn": true, "passwords": true, "secrets": true,
	"apikeys": true,
}

// secretPairs are two-word tails that name a secret ("api_key", "private-key",
// "secretAccessKey" ends in "access key").
var secretPairs = map[[2]string]bool{
	{"api", "key"}: true, {"private", "key"}: true, {"access", "key"}: true,
	{"secret", "key"}: true, {"signing", "key"}: true, {"encryption", "key"}: true,
	{"client", "secret"}: true, {"set", "cookie"}: true, {"session", "token"}: true,
	{"api", "keys"}: true, {"private", "keys"}: true, {"access", "keys"}: true,
	{"secret", "keys"}: true, {"signing", "keys"}: true, {"encryption", "keys"}: true,
	{"client", "secrets"}: true,
}

// secretAnyWords make a key secret wherever they appear in it ("password_hash",
// "authorization.scheme", "cookie_header").
var secretAnyWords = map[string]bool{
	"password": true, "passwd": true, "authorization": true, "cookie": true, "secret": true,
}

// quantifiers are the words that make the secret word after them a count
// or a switch, not a secret: --min-pass 3, max_token=5, --no-pass.
var quantifiers = map[string]bool{
	"min": true, "max": true, "minimum": true, "maximum": true, "num": true, "number": true,
	"count": true, "no": true, "skip": true, "dry": true,
}

// secretWholeKeys are key tails (words joined by "_") that hold secrets
// without a secret word in them: MySQL's password-hash column.
var secretWholeKeys = map[string]bool{
	"authentication_string": true, "connection_string": true,
}

// IsSecretKey reports whether a field, column or header named key holds a
// secret, so its value is masked whatever it looks like. The key is split into
// words at punctuation and camelCase boundaries and matched on its tail:
// "password", "API_KEY", "headers.Authorization", "awsSecretAccessKey" are
// secret; "token_count", "max_tokens", "keyspace" are not.
func IsSecretKey(key string) bool {
	words := keyWords(key)
	if len(words) == 0 || hungarianToken(key) {
		return false
	}
	joined := strings.Join(words, "_")
	for k := range secretWholeKeys {
		if joined == k || strings.HasSuffix(joined, "_"+k) {
			return true
		}
	}
	for _, w := range words {
		if secretAnyWords[w] {
			return true
		}
	}
	if len(words) >= 2 && quantifiers[words[len(words)-2]] {
		return false // min_pass, max_token: a count
	}
	last := strings.TrimRightFunc(words[len(words)-1], unicode.IsDigit) // password2, token_2
	if last == "" && len(words) >= 2 {
		last = words[len(words)-2]
	}
	if secretLastWords[last] || cjkSecretWord(last) {
		return true
	}
	if len(words) >= 2 && secretPairs[[2]string{words[len(words)-2], last}] {
		return true
	}
	// A secret word split in two by its case or punctuation: "PassWord",
	// "userPassWd", "Pass_Phrase".
	for i := 0; i+1 < len(words); i++ {
		w := words[i] + words[i+1]
		if secretAnyWords[w] || i+2 == len(words) && secretLastWords[strings.TrimRightFunc(w, unicode.IsDigit)] {
			return true
		}
	}
	return false
}

// hungarianToken reports a field named in Hungarian notation whose name is
// the bare word token: one lower-case letter glued to "Token" (mToken,
// sToken, mToken2), as Android and Java dumps name an object handle
// (dumpsys window: mToken=WindowToken{b3f8a6f0 null}), not a credential.
// A qualified token keeps its secret (mAccessToken, mAuthToken: their
// words decide), and so do tokens with more letters before them (apiToken,
// authToken) or a separator (x-token, x_token).
func hungarianToken(key string) bool {
	if len(key) < 6 || key[0] < 'a' || key[0] > 'z' || !strings.HasPrefix(key[1:], "Token") {
		return false
	}
	for _, c := range key[6:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// field is the one rule of a named field's value, whoever decides which
// names are secret (a Keyed's list): Marker for a secret
// name's non-empty value (an empty one stays empty, nothing hides in it),
// else the value passed through clean.
func field(secret bool, value string, clean func(string) string) string {
	if secret {
		if value == "" {
			return value
		}
		return Marker
	}
	return clean(value)
}

// cjkSecretWord reports whether a word, which in Chinese runs unbroken
// (数据库密码), ends with a Chinese secret word.
func cjkSecretWord(w string) bool {
	for _, k := range cjkKeys {
		if strings.HasSuffix(w, k) {
			return true
		}
	}
	return false
}

// keyWords lower-cases key (folded: full-width letters count as ASCII and
// invisible characters do not split it) and splits it into words at every non-alphanumeric
// rune and at lower-to-upper case changes ("xApiKey" → x, api, key;
// "HTTPHeader" → http, header).
func keyWords(key string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	rs := []rune(fold(key))
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return words
}
