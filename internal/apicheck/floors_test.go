package apicheck

import (
	"os"
	"strings"
	"testing"
)

const module = "github.com/superbiz/superbiz"

// TestImportsKeepTheFloors is the gate of docs/ARCHITECTURE.md's chart: no
// package of the module imports from a floor above its own, and every
// package stands on a floor the chart names.
func TestImportsKeepTheFloors(t *testing.T) {
	needGo(t)
	readSources(t, "../..")
	floors, err := ParseFloors(mustRead(t, "../../docs/ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	found, err := floors.Check("../..", module, "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range found {
		t.Errorf("%s: move the import, or the package on docs/ARCHITECTURE.md's chart", c)
	}
}

// The chart's patterns place packages as a reader of the chart would, the
// most specific pattern winning, and a crossing is found in a planted chart.
func TestFloorsPlaceAndCatch(t *testing.T) {
	const doc = "intro\n## The house and its floors\n\ntext\n\n```\n" +
		"floor 3  main.go → cmd/                 flags\n" +
		"floor 2  internal/config                 the file (it declares\n" +
		"                                         continued description, no cell)\n" +
		"         internal/integration/<name>/    one folder each\n" +
		"floor 1  pkg/tools/<tool>/, pkg/runstore the tools\n" +
		"floor 0  pkg/tools,                      ports\n" +
		"         pkg/model                       the port\n" +
		"         internal/<leaf>                 (textclip, ...)\n" +
		"```\n"
	floors, err := ParseFloors([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"cmd": 3, "cmd/sub": 3, "internal/config": 2, "internal/config/configtest": 2,
		"internal/integration/logs": 2, "pkg/tools/logs": 1, "pkg/tools/logs/inner": 1,
		"pkg/runstore": 1, "pkg/tools": 0, "pkg/model": 0, "internal/textclip": 0, "internal/configx": 0,
	} {
		if got, pat, ok := floors.Of(path); !ok || got != want {
			t.Errorf("Of(%q) = %d (%q, %t), want %d", path, got, pat, ok, want)
		}
	}
	if _, _, ok := floors.Of("examples/embed"); ok {
		t.Error("a package the chart does not name was placed")
	}
	// The module itself, with internal/config put on floor 0, under
	// pkg/model/<provider>/ (floor 1), whose modelhost (the host URL
	// parser) it imports: a crossing is reported.
	lowered := strings.Replace(string(mustRead(t, "../../docs/ARCHITECTURE.md")),
		"\n         internal/config   ", "\nfloor 0  internal/config   ", 1)
	floors, err = ParseFloors([]byte(lowered))
	if err != nil {
		t.Fatal(err)
	}
	found, err := floors.Check("../..", module, "./internal/config")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range found {
		got = append(got, c.String())
	}
	if want := "internal/config (floor 0) imports pkg/model/modelhost (floor 1)"; !strings.Contains(strings.Join(got, "\n"), want) {
		t.Errorf("crossings %q, want one saying %q", got, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
