package egress

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSinks(t *testing.T) {
	for _, tt := range []struct {
		name, got, want string
	}{
		{"URL password", URL("https://ops:pw12@ollama.internal:443/api-gw").String(), "https://ops:" + Marker + "@ollama.internal:443/api-gw"},
		{"URL without password", URL("http://ops@h:1").String(), "http://ops@h:1"},
		{"URL that does not parse", URL("http://bob:pw%zz@h:1").String(), "http://" + Marker + "@h:1"},
		{"Userinfo", Userinfo("http://bob:Hunter2Secret@h:99999").String(), "http://" + Marker + "@h:99999"},
		{"Userinfo without @", Userinfo("h:1").String(), "h:1"},
		{"DSN", DSN("u@ser:p@ss@tcp(db:3306)/shop", "p@ss").String(), "u@ser:" + Marker + "@tcp(db:3306)/shop"},
		{"DSN without password", DSN("u@tcp(db:3306)/shop", "").String(), "u@tcp(db:3306)/shop"},
		{"DSN unsure", DSN("no-slash", "secret").String(), Marker},
		{"text cell", Cell(`{"a":{"token":"t0k3n"}} password=hunter2`, false).(string), `{"a":{"token":"` + Marker + `"}} password=` + Marker},
		{"secret text cell", Cell("anything", true).(string), Marker},
		{"empty secret cell", Cell("", true).(string), ""},
		{"credential literal", NewCredential("u", "pw", "").Literal("pw and cHc= and dTpwdw=="), Marker + " and " + Marker + " and " + Marker},
		{"credential answer skips short forms", NewCredential("u", "pw", "").Answer("pw"), "pw"},
		{"credential body", string(NewCredential("", "", "tok-1234").Body([]byte(`{"x":"tok-1234"}`))), `{"x":"` + Marker + `"}`},
		{"short token is no credential", NewCredential("", "", "e").Literal("query_logs ZQ=="), "query_logs ZQ=="},
		{"seven-byte token is no credential", NewCredential("", "", "abcdefg").Literal("abcdefg"), "abcdefg"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if Cell(nil, true) != nil || Cell(42, true) != Marker || Cell(42, false) != 42 {
		t.Errorf("non-text cells: %v %v %v", Cell(nil, true), Cell(42, true), Cell(42, false))
	}
}

// TestNoSecondMarker: outside this package no production code writes a
// marker of its own ("***", "xxxxx", a "[REDACTED]" literal) nor replaces
// text with Marker by hand: every sink masks through an entry point of this
// door (pkg/egress, on pkg/redact's rules), so there is one marker and one rule per kind of sink.
func TestNoSecondMarker(t *testing.T) {
	root := filepath.Join("..", "..")
	others := []string{"***", "xxxxx", "[redacted]", "<redacted>"}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", "redact", "egress", "examples":
				if (d.Name() != "redact" && d.Name() != "egress") || filepath.Base(filepath.Dir(path)) == "pkg" {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(x.Value)
				if err != nil {
					return true
				}
				for _, o := range others {
					if strings.Contains(strings.ToLower(s), o) {
						t.Errorf("%s: a marker of its own %q: mask through pkg/egress (Marker)", fset.Position(x.Pos()), s)
					}
				}
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if !ok || !strings.HasPrefix(sel.Sel.Name, "Replace") {
					return true
				}
				for _, a := range x.Args {
					if m, ok := a.(*ast.SelectorExpr); ok && m.Sel.Name == "Marker" {
						t.Errorf("%s: replaces text with Marker by hand: use an entry point of pkg/egress (Credential, Mask, Field, Cell, …)", fset.Position(x.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// LibPQ masks the password of both forms of a PostgreSQL DSN, and the
// client key's passphrase, keeping everything else.
func TestLibPQ(t *testing.T) {
	for _, tt := range []struct{ in, password, want string }{
		{"postgres://ro:Pg%2FPass9@db:5432/shop?sslmode=require&sslpassword=KeyPass9", "Pg/Pass9", "postgres://ro:" + Marker + "@db:5432/shop?sslmode=require&sslpassword=" + Marker},
		{"host=db port=5432 user=ro password='two \\' words' dbname=shop", "two ' words", "host=db port=5432 user=ro password=" + Marker + " dbname=shop"},
		{"host=db user=ro dbname=shop", "", "host=db user=ro dbname=shop"},
	} {
		if got := LibPQ(tt.in, tt.password).String(); got != tt.want {
			t.Errorf("LibPQ(%q).String()\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestField(t *testing.T) {
	if got := Field("password", "hunter2").String(); got != Marker {
		t.Errorf("Field(password).String() = %q", got)
	}
	if got := Field("password", "").String(); got != "" {
		t.Errorf("Field(password, empty).String() = %q", got)
	}
	if got := Field("msg", "login ok password=hunter2").String(); got != "login ok password="+Marker {
		t.Errorf("Field(msg).String() = %q", got)
	}
	if got := Field("msg", "plain").String(); got != "plain" {
		t.Errorf("Field(msg, plain).String() = %q", got)
	}
}

// LibPQ: a secret query key in any case is masked, and an output that still
// holds the parsed password anywhere (the host, the database name) is
// Marker whole.
func TestLibPQMutationPass(t *testing.T) {
	for _, tt := range []struct{ in, password, want string }{
		{"postgres://ro@db/shop?Password=hunter2x", "", "postgres://ro@db/shop?Password=" + Marker},
		{"postgres://ro@db/shop?SSLPASSWORD=hunter2x", "", "postgres://ro@db/shop?SSLPASSWORD=" + Marker},
		{"postgres://ro:hunter2x@db/hunter2x", "hunter2x", Marker},
		{"host=hunter2x password=hunter2x dbname=shop", "hunter2x", Marker},
		{"host=db password=hunter2x dbname=shop", "hunter2x", "host=db password=" + Marker + " dbname=shop"},
	} {
		if got := LibPQ(tt.in, tt.password).String(); got != tt.want {
			t.Errorf("LibPQ(%q, %q).String()\n got %q\nwant %q", tt.in, tt.password, got, tt.want)
		}
	}
}
