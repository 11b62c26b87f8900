package defaults

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// upper parses itself from text, as a URL or DSN type does.
type upper struct{ s string }

func (u *upper) UnmarshalText(b []byte) error { u.s = strings.ToUpper(string(b)); return nil }

type auth struct {
	User string `toml:"user" default:"ro"`
}

type inner struct {
	N int `toml:"n" default:"3"`
}

type settings struct {
	Name    string        `toml:"name" default:"app"`
	Wait    time.Duration `toml:"wait" default:"1m30s"`
	Ratio   float64       `toml:"ratio" default:"0.5"`
	On      bool          `toml:"on" default:"true"`
	Paths   []string      `toml:"paths" default:"a,b"`
	Host    upper         `toml:"host" default:"h"`
	When    time.Time     `toml:"when"`
	Table   inner         `toml:"table"`
	Keep    int           `toml:"keep"`
	Untyped int           `default:"9"` // no toml key: not a setting
	auth
}

func TestOf(t *testing.T) {
	got := Of[settings]()
	want := settings{Name: "app", Wait: 90 * time.Second, Ratio: 0.5, On: true, Paths: []string{"a", "b"},
		Host: upper{"H"}, Table: inner{N: 3}, auth: auth{User: "ro"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Of = %+v\nwant %+v", got, want)
	}
}

func TestFillKeepsFieldsWithoutDefault(t *testing.T) {
	s := settings{Keep: 7, Name: "mine"}
	if err := Fill(&s); err != nil {
		t.Fatal(err)
	}
	if s.Keep != 7 || s.Name != "app" {
		t.Errorf("Fill: Keep %d (want 7, no default), Name %q (want the default)", s.Keep, s.Name)
	}
}

func TestFillErrors(t *testing.T) {
	type bad struct {
		N int `toml:"n" default:"many"`
	}
	type unsupported struct {
		C chan int `toml:"c" default:"x"`
	}
	for name, c := range map[string]struct {
		ptr  any
		want string
	}{
		"not a pointer":    {settings{}, "non-nil pointer to a struct"},
		"nil pointer":      {(*settings)(nil), "non-nil pointer to a struct"},
		"malformed":        {&bad{}, `default of bad.N: strconv.Atoi: parsing "many"`},
		"unsupported kind": {&unsupported{}, "no default for a chan int"},
	} {
		t.Run(name, func(t *testing.T) {
			err := Fill(c.ptr)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Fill: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestOfPanicsOnAMalformedDeclaration(t *testing.T) {
	type bad struct {
		D time.Duration `toml:"d" default:"soon"`
	}
	defer func() {
		if recover() == nil {
			t.Error("Of did not panic on a malformed default")
		}
	}()
	Of[bad]()
}
