package playbooks

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"skills.paths": {Type: "array of paths", Accepted: "extra playbook directories, each holding `<name>/SKILL.md` with `name` and `description` front matter"},
	}
}
