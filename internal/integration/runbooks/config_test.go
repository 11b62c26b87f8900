package runbooks

import (
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// A [knowledge] table's mistakes, from its tags (keys, types) and from the
// rules the tags cannot state, are reported at load, naming the key and
// the file, never a credential.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "empty knowledge path", TOML: "[knowledge]\npaths = [\"\"]\n", Want: []string{`knowledge.paths[0] = "" in `, "empty"}},
		{Name: "paths not strings", TOML: "[knowledge]\npaths = [1, 2]\n", Want: []string{"knowledge.paths[0] = 1 in ", "must be a string"}},
		{Name: "unknown key with suggestion", TOML: "[knowledge]\npath = [\"kb\"]\n", Want: []string{`unknown key "knowledge.path"`, `did you mean "knowledge.paths"?`}},
	})
}
