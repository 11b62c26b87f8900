package evalpack

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// SkillsDir is the pack folder the playbooks of [skills] the run read are
// written under, one <name>/SKILL.md each.
const SkillsDir = "skills"

// skillsFile is the pack's [skills] table.
type skillsFile struct {
	Paths []string `toml:"paths"`
}

// freezeSkills copies, redacted, each playbook of the configuration's
// [skills] paths the run read (the built-in ones come with every superbiz).
func (p *pack) freezeSkills(context.Context) error {
	var names []string
	for _, inv := range p.opts.Run.Invocations {
		var in struct {
			Name string `json:"name"`
		}
		if inv.Tool == harness.ReadSkillTool && json.Unmarshal(inv.Input, &in) == nil && in.Name != "" && !slices.Contains(names, in.Name) {
			names = append(names, in.Name)
		}
	}
	if len(names) == 0 || len(p.opts.Config.Skills.Paths) == 0 {
		return nil
	}
	cat, err := skills.Load(p.opts.Config.Skills.Paths)
	if err != nil {
		return fmt.Errorf("eval pack: playbooks: %w", err)
	}
	n := 0
	for _, name := range names {
		pb, ok := cat.Get(name)
		if !ok || pb.Source == skills.SourceBuiltin {
			continue
		}
		data, err := os.ReadFile(pb.Source)
		if err != nil {
			return fmt.Errorf("eval pack: playbook %s: %w", name, err)
		}
		dst := filepath.Join(p.dir, SkillsDir, filepath.Base(filepath.Dir(pb.Source)), skills.FileName)
		if err := writeFile(dst, []byte(redact.KeepControls(string(data)))); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		p.cfg.Skills = &skillsFile{Paths: []string{SkillsDir}}
		p.frozen("playbooks: %d of [skills] the run read", n)
	}
	return nil
}
