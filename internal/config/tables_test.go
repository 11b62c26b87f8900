package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// widget is an [[widgets]] entry a share declares (Part.Schema) with no
// field on Config, as an integration's folder does.
type widget struct {
	Name    string        `toml:"name" json:"name"`
	URL     string        `toml:"url" json:"url"`
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"10s" min:"1s" max:"1m"`
	Mode    string        `toml:"mode" json:"mode" default:"fast" enum:"fast,slow"`
}

// gadget is a [gadget] table a share declares.
type gadget struct {
	Level int `toml:"level" json:"level" default:"3" min:"1" max:"9"`
}

func widgetParts() []Part {
	return []Part{
		{Table: "widgets", Schema: []widget(nil), Summary: func(c *Config) []string {
			var out []string
			for _, w := range TableOf[[]widget](c, "widgets") {
				out = append(out, "widget "+w.Name+": "+c.Pairs("", w, "name"))
			}
			return out
		}},
		{Table: "gadget", Schema: gadget{}},
	}
}

// A table declared by its share is loaded, defaulted, checked, shown,
// encoded and listed like a field of Config: a new integration adds its
// table with no line in this package.
func TestTableDeclaredByItsShare(t *testing.T) {
	const file = "/etc/superbiz.toml"
	load := func(body string) (*Config, error) {
		return load([]byte(body), file, "/", func(string) string { return "" }, Overrides{}, nil, widgetParts()...)
	}
	cfg, err := load("[[widgets]]\nname = \"w1\"\nurl = \"http://x\"\n\n[[widgets]]\nname = \"w2\"\nmode = \"slow\"\ntimeout = \"20s\"\n\n[gadget]\nlevel = 5\n")
	if err != nil {
		t.Fatal(err)
	}
	ws := TableOf[[]widget](cfg, "widgets")
	if len(ws) != 2 || ws[0] != (widget{Name: "w1", URL: "http://x", Timeout: 10 * time.Second, Mode: "fast"}) || ws[1].Timeout != 20*time.Second || ws[1].Mode != "slow" {
		t.Errorf("widgets = %+v", ws)
	}
	if g := TableOf[gadget](cfg, "gadget"); g.Level != 5 {
		t.Errorf("gadget = %+v", g)
	}
	if s := cfg.String(); !strings.Contains(s, "widget w2: url , timeout 20s, mode slow") {
		t.Errorf("summary:\n%s", s)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"widgets":[{"name":"w1","url":"http://x","timeout":"10s","mode":"fast"},`) || !strings.HasSuffix(string(b), `"gadget":{"level":5}}`) {
		t.Errorf("JSON view: %s", b)
	}
	if got := cfg.Values("widgets[].mode"); !slices.Equal(got, []any{"fast", "slow"}) {
		t.Errorf("Values(widgets[].mode) = %v", got)
	}
	keys := Keys(widgetParts()...)
	if !slices.Contains(keys, "widgets[].timeout") || !slices.Contains(keys, "gadget.level") || slices.Contains(Keys(), "gadget.level") {
		t.Errorf("Keys: %v", keys)
	}
	if Default("widgets[].timeout", widgetParts()...) != 10*time.Second || Default("gadget.level", widgetParts()...) != 3 {
		t.Error("Default of a declared table's key")
	}
	// Without a file the tables hold their defaults: no entry, a defaulted table.
	def := Defaults(widgetParts()...)
	if len(TableOf[[]widget](&def, "widgets")) != 0 || TableOf[gadget](&def, "gadget").Level != 3 {
		t.Errorf("defaults: %+v %+v", TableOf[[]widget](&def, "widgets"), TableOf[gadget](&def, "gadget"))
	}

	for _, tt := range []struct{ body, want string }{
		{"[[widgets]]\nname = \"w\"\ntimout = \"1s\"\n", `unknown key "widgets[0].timout" in /etc/superbiz.toml (did you mean "widgets[0].timeout"?)`},
		{"[[widgets]]\nname = \"w\"\ntimeout = \"2h\"\n", `widgets[0].timeout = "2h" in /etc/superbiz.toml: must be between 1s and 1m`},
		{"[[widgets]]\nname = \"w\"\nmode = \"odd\"\n", `widgets[0].mode = "odd" in /etc/superbiz.toml: must be one of fast, slow`},
		{"[[widgets]]\nname = \"w\"\n[[widgets]]\nname = \"w\"\n", "duplicate: widgets[0] already uses this name"},
		{"[[widgets]]\nurl = \"x\"\n", `widgets[0].name = "" in /etc/superbiz.toml: missing`},
		{"[gadget]\nlevel = 0\n", "gadget.level = 0 in /etc/superbiz.toml: must be between 1 and 9"},
		{"gadgets = 1\n", `unknown key "gadgets" in /etc/superbiz.toml (did you mean "gadget"?)`},
		{"widgets = 1\n", "widgets in /etc/superbiz.toml: must be an array of tables ([[widgets]])"},
	} {
		_, err := load(tt.body)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.body, err, tt.want)
		}
	}
}

// SetTable changes one copy of a configuration, never another, and
// refuses a table no share declares or a value of another type.
func TestSetTable(t *testing.T) {
	a := Defaults(widgetParts()...)
	b := a
	SetTable(&b, "widgets", []widget{{Name: "only-b"}})
	if len(TableOf[[]widget](&a, "widgets")) != 0 || TableOf[[]widget](&b, "widgets")[0].Name != "only-b" {
		t.Errorf("a %+v, b %+v", TableOf[[]widget](&a, "widgets"), TableOf[[]widget](&b, "widgets"))
	}
	for name, set := range map[string]func(){
		"undeclared":   func() { SetTable(&a, "nope", []widget{}) },
		"another type": func() { SetTable(&a, "gadget", widget{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: SetTable did not panic", name)
				}
			}()
			set()
		}()
	}
}

// A share's Decoded runs on its table as the file decoded it: what it
// stores is kept, and each of its errors is a problem of the file beside
// the decoder's own, a *KeyError shown as a bad value of the file.
func TestDecodedHook(t *testing.T) {
	const file = "/etc/superbiz.toml"
	calls := 0
	parts := widgetParts()
	parts[0].Decoded = func(c *Config) error {
		calls++
		ws := slices.Clone(TableOf[[]widget](c, "widgets"))
		var errs []error
		for i, w := range ws {
			switch w.URL {
			case "bad":
				errs = append(errs, &KeyError{Key: fmt.Sprintf("widgets[%d].url", i), Shown: Show(w.URL), Problem: "not a widget URL"})
			case "hidden":
				errs = append(errs, &KeyError{Key: fmt.Sprintf("widgets[%d].url", i), Problem: "not shown"})
			case "plain":
				errs = append(errs, errors.New("no such widget"))
			default:
				ws[i].URL = "decoded:" + w.URL
			}
		}
		SetTable(c, "widgets", ws)
		return errors.Join(errs...)
	}
	load := func(body string) (*Config, error) {
		return load([]byte(body), file, "/", func(string) string { return "" }, Overrides{}, nil, parts...)
	}
	cfg, err := load("[[widgets]]\nname = \"w1\"\nurl = \"x\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if ws := TableOf[[]widget](cfg, "widgets"); ws[0].URL != "decoded:x" {
		t.Errorf("widgets = %+v, want the URL Decoded stored", ws)
	}
	_, err = load("[[widgets]]\nname = \"w1\"\nurl = \"bad\"\n[[widgets]]\nname = \"w2\"\nurl = \"hidden\"\n[[widgets]]\nname = \"w3\"\nurl = \"plain\"\n[[widgets]]\nname = \"w4\"\ntimeout = 5\n")
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a *Error", err)
	}
	want := []string{
		"widgets[3].timeout = 5 in " + file + `: must be a duration string such as "180s" or "3m"`,
		`widgets[0].url = "bad" in ` + file + ": not a widget URL",
		"widgets[1].url in " + file + ": not shown",
		"widgets in " + file + ": no such widget",
	}
	if !slices.Equal(ce.Problems, want) {
		t.Errorf("problems\n%q\nwant\n%q", ce.Problems, want)
	}
	// without a file nothing was decoded: Decoded does not run
	calls = 0
	if _, err := load(""); err != nil || calls != 1 {
		t.Errorf("an empty file: %v, %d calls, want Decoded run once", err, calls)
	}
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": dir}[k] }
	if _, err := Load(LoadOptions{WorkDir: dir, Getenv: getenv, Parts: parts}); err != nil || calls != 1 {
		t.Errorf("no file: %v, %d calls in all, want none more", err, calls)
	}
}

// rig is a [rig] table a share declares with a required key and an array
// of tables below it, as [timeline] holds [[timeline.metrics]].
type rig struct {
	Label string    `toml:"label" json:"label" required:"true"`
	Parts []rigPart `toml:"parts" json:"parts"`
}

type rigPart struct {
	Name  string `toml:"name" json:"name" required:"true"`
	Query string `toml:"query" json:"query" required:"true"`
	Level int    `toml:"level" json:"level" default:"3" min:"1" max:"9"`
}

// A required key left empty, and a bound broken, are refused at any depth,
// naming the key, the table and the entry (by its name when it has one).
func TestRequiredAndBoundsBelowATable(t *testing.T) {
	const file = "/etc/superbiz.toml"
	parts := []Part{{Table: "rig", Schema: rig{}}}
	tests := []struct {
		name, toml string
		want       []string
	}{
		{"complete", "[rig]\nlabel = \"r\"\n[[rig.parts]]\nname = \"a\"\nquery = \"q\"\n", nil},
		{"no label", "[[rig.parts]]\nname = \"a\"\nquery = \"q\"\n", []string{`rig.label = "" in ` + file + `: missing: [rig] needs its label`}},
		{"an entry without its query", "[rig]\nlabel = \"r\"\n[[rig.parts]]\nname = \"a\"\nquery = \"\"\n", []string{`rig.parts[0].query = "" in ` + file + `: missing: the [[rig.parts]] entry "a" needs its query`}},
		{"an entry without a name", "[rig]\nlabel = \"r\"\n[[rig.parts]]\nname = \"a\"\nquery = \"q\"\n[[rig.parts]]\nquery = \"q\"\n", []string{`rig.parts[1].name = "" in ` + file + `: missing: every [[rig.parts]] entry needs its name`}},
		{"an entry's bound", "[rig]\nlabel = \"r\"\n[[rig.parts]]\nname = \"a\"\nquery = \"q\"\nlevel = 99\n", []string{"rig.parts[0].level = 99 in " + file + ": must be between 1 and 9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load([]byte(tt.toml), file, "/", func(string) string { return "" }, Overrides{}, nil, parts...)
			var got []string
			if ce := (*Error)(nil); errors.As(err, &ce) {
				got = ce.Problems
			} else if err != nil {
				t.Fatalf("error %T: %v", err, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
