// Package canary is the shared corpus of planted secrets the canary suite
// (e2e/canary_test.go) puts in every integration's fixtures and looks for in
// every sink: one canary per shape the egress policy masks, each with a
// value found nowhere else, so finding it anywhere outside the fixture is a
// leak.
package canary

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// Canary is one planted secret: the shape it is written in, the secret
// value, and the text that holds it in that shape.
type Canary struct {
	Shape  string
	Secret string
	Text   string
}

// The affixes every canary's secret begins and ends with (Secrets finds
// them in a line).
const (
	secretPrefix = "Cnry"
	secretSuffix = "Qz7"
)

// Corpus is every canary, one per shape; seed makes the values of one
// suite's corpus differ from another's (a run planting "logs" does not
// match a run planting "runbooks").
func Corpus(seed string) []Canary {
	v := func(n int) string { return fmt.Sprintf("%s%s%02d%s", secretPrefix, seed, n, secretSuffix) }
	return []Canary{
		{"json member", v(1), `{"level":"INFO","password":"` + v(1) + `"}`},
		{"json array", v(2), `{"level":"INFO","api_keys":["` + v(2) + `"]}`},
		{"json nested object", v(3), `{"level":"INFO","token":{"value":"` + v(3) + `"}}`},
		{"escaped json", v(4), `payload "{\"signing_key\":\"` + v(4) + `\"}"`},
		{"key=value", v(5), "login ok db_password=" + v(5) + " user=app"},
		{"url userinfo", v(6), "connecting to https://app:" + v(6) + "@api.internal/v1"},
		{"dsn", v(7), "dsn app:" + v(7) + "@tcp(db:3306)/shop"},
		{"cli flag", v(8), "exec backup --db-password " + v(8) + " --verbose"},
		{"header", v(9), "Authorization: Bearer " + v(9) + "abcdef0123"},
		{"provider token", v(10), "key ghp_" + v(10) + "abcdefghijklmnopqrst"},
		{"cjk key", v(11), "数据库密码=" + v(11)},
		{"full-width key", v(12), "ｐａｓｓｗｏｒｄ＝" + v(12)},
		{"digit-suffixed key", v(13), `{"password2":"` + v(13) + `"}`},
		{"smtp pass", v(14), "smtp pass: " + v(14)},
	}
}

// Shapes is the number of shapes the corpus covers.
func Shapes() int { return len(Corpus("")) }

// Lines are the texts of c, one per canary.
func Lines(c []Canary) []string {
	out := make([]string, len(c))
	for i, x := range c {
		out[i] = x.Text
	}
	return out
}

// Found returns the canaries of c whose secret occurs in b as written,
// lower-cased (as a full-text index keeps its tokens), URL-encoded or
// base64-encoded.
func Found(c []Canary, b []byte) []Canary {
	var out []Canary
	for _, x := range c {
		for _, form := range []string{x.Secret, strings.ToLower(x.Secret), url.QueryEscape(x.Secret), base64.StdEncoding.EncodeToString([]byte(x.Secret))} {
			if bytes.Contains(b, []byte(form)) {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// Secrets are the bare secrets the lines of a corpus hold, one per line
// ("" for a line holding none): a source plants them where no shape
// marks them but their place does (a secret-named column), so only the
// source's own masking can hide them.
func Secrets(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		start := strings.Index(l, secretPrefix)
		if start < 0 {
			continue
		}
		if end := strings.Index(l[start:], secretSuffix); end >= 0 {
			out[i] = l[start : start+end+len(secretSuffix)]
		}
	}
	return out
}
