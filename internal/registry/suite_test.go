package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/superbiz/superbiz/internal/integration"
)

// Every registered source that adds a tool runs internal/conformance's
// suite from its own folder, stood up for real: a test there calls
// conformance.Run with the source's type. A new source's line in Sources()
// fails here until its folder has one. A source without a table of its own,
// or a Composite (build_timeline, over the tools of the others, its
// [timeline] table naming what they read), reaches no system of its own to
// stand up, and is not asked.
func TestEverySourceRunsTheSuite(t *testing.T) {
	for _, s := range Sources() {
		_, own := s.(integration.Configured)
		if _, composite := s.(integration.Composite); s.Tool() == "" || !own || composite {
			continue
		}
		dir := folderOf(s)
		typ := reflect.TypeOf(s)
		call := regexp.MustCompile(`conformance\.Run\(t, ` + regexp.QuoteMeta(filepath.Base(typ.PkgPath())+"."+typ.Name()) + `\{\}`)
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			found = found || call.Match(b)
		}
		if !found {
			t.Errorf("source %s (%s): no test in %s calls conformance.Run(t, %s{}, …) with a fixture of its own", s.Name(), s.Tool(), dir, typ)
		}
	}
}
