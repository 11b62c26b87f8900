package playbooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// PackDir is the pack folder the playbooks of [skills] the run read are
// written under, one <name>/SKILL.md each.
const PackDir = "skills"

// skillsFile is the pack's [skills] table.
type skillsFile struct {
	Paths []string `toml:"paths"`
}

// PackTable is [skills]: Freeze writes the pack's own (integration.Packed).
func (Source) PackTable() string { return table }

// PackPaths are the configuration's skills.paths, which a pack's must keep
// inside it.
func (Source) PackPaths(cfg *config.Config) []integration.PackPath {
	return integration.PathList(table+".paths", Paths(cfg))
}

// Freezes is read_skill.
func (Source) Freezes() []string { return []string{tools.ReadSkillTool} }

// Freeze copies, redacted, each playbook of the configuration's [skills]
// paths the run read (the built-in ones come with every superbiz).
func (Source) Freeze(_ context.Context, p *frozen.Pack) error {
	var names []string
	for _, inv := range p.Run.Invocations {
		var in struct {
			Name string `json:"name"`
		}
		if inv.Tool == tools.ReadSkillTool && json.Unmarshal(inv.Input, &in) == nil && in.Name != "" && !slices.Contains(names, in.Name) {
			names = append(names, in.Name)
		}
	}
	if len(names) == 0 || len(Paths(p.Config)) == 0 {
		return nil
	}
	cat, err := skills.Load(Paths(p.Config))
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
		dst := p.Path(PackDir, filepath.Base(filepath.Dir(pb.Source)), skills.FileName)
		if err := p.WriteText(dst, egress.Mask(string(data))); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		p.Table("skills", skillsFile{Paths: []string{PackDir}})
		p.Frozen("playbooks: %d of [skills] the run read", n)
	}
	return nil
}
