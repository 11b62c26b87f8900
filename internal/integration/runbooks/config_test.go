package runbooks

import (
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// The rules of [knowledge] that the tags cannot state are reported at load,
// naming the key and the file, never a credential.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "empty knowledge path", TOML: "[knowledge]\npaths = [\"\"]\n", Want: []string{`knowledge.paths[0] = "" in `, "empty"}},
	})
}
