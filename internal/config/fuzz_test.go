package config

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSecret is planted as the password of a mysql DSN after the fuzzed TOML.
const fuzzSecret = "Zq7PlantedPw9"

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			b.WriteString(`\u`)
			const hex = "0123456789ABCDEF"
			b.WriteString(string([]byte{'0', '0', hex[r>>4&0xf], hex[r&0xf]}))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzLoad loads arbitrary TOML followed by a database whose DSN holds a
// planted password: Load must never panic, its error must never contain the
// password, and when the password did end up in a DSN, the loaded config's
// String and Summary must not contain it either.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(""), "@tcp(127.0.0.1:3306)/orders", true)
	f.Add([]byte("[model]\nname = \"x\"\n"), "@tcp(h:1)", true)
	f.Add([]byte("[model]\nlanguage = \"\"\""), "@tcp(h:1)/d\"\"\"\n", false)
	f.Add([]byte("[[logs]]\nname = \"a\"\npaths = [\"*.log\"]\nformat = \"xml\""), "@h:3306/db", true)
	f.Add([]byte("x = '''"), "'''@tcp(h:1)/d?parseTime=maybe", false)
	f.Add([]byte("[budget]\nmax_tool_calls = 0\ndeadline = \"5 m\""), "@tcp(h:1)/%zz", true)
	f.Add([]byte("[model]\nhost = \"http://u:"+fuzzSecret+"@h:1\"\n"), "@tcp(h:1)/d", true)
	f.Fuzz(func(t *testing.T, prefix []byte, tail string, quote bool) {
		if strings.Contains(string(prefix), fuzzSecret[:6]) || strings.Contains(tail, fuzzSecret[:6]) {
			t.Skip("the fuzzed text itself contains the planted password")
		}
		dsn := "readonly:" + fuzzSecret + tail
		lit := `"` + dsn + `"`
		if quote {
			lit = tomlQuote(dsn)
		}
		doc := string(prefix) + "\n[[databases]]\nname = \"fuzzdb\"\ndriver = \"mysql\"\ndsn = " + lit + "\n"
		env := testEnv{"XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/config", "HOME": "/home/u"}
		cfg, err := load([]byte(doc), "/etc/superbiz.toml", "/wd", env.get, Overrides{}, nil, sourceShares...)
		if err != nil {
			if strings.Contains(err.Error(), fuzzSecret) {
				t.Fatalf("error leaks the planted password:\n%v", err)
			}
			return
		}
		// The fuzzed prefix may swallow the DSN line into another value (an
		// unterminated multi-line string): then it is no DSN, and is shown as written.
		inDSN := false
		for _, db := range databasesOf(cfg) {
			inDSN = inDSN || strings.Contains(db.DSN.Reveal(), fuzzSecret)
		}
		out := cfg.String() + strings.Join(cfg.Summary(), "\n")
		if inDSN && strings.Contains(out, fuzzSecret) {
			t.Fatalf("summary leaks the planted password:\n%s", out)
		}
	})
}
