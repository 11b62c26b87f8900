package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// Knowledge checks each knowledge path as `kb index` reads it: it
// exists, is a directory (or file) of Markdown, and nothing under it is left
// out (links leading outside, special files, oversized runbooks). A missing
// default ./runbooks is only a warning: superbiz runs without runbooks, and
// the user never asked for that path.
func Knowledge(ctx context.Context, cfg *config.Config) []Result {
	var out []Result
	for _, p := range cfg.Knowledge.Paths {
		const name = "knowledge"
		_, err := os.Stat(p)
		if err != nil {
			detail := fmt.Sprintf("%s: %v", p, errors.Unwrap(err))
			if errors.Is(err, fs.ErrNotExist) {
				detail = p + " does not exist"
			}
			hint := "create it or fix knowledge.paths in " + cfg.File
			if cfg.File == "" {
				out = append(out, Warned(name, detail, "put the team's Markdown runbooks there, or list their directories in knowledge.paths of a config file"))
				continue
			}
			out = append(out, Failed(name, detail, hint))
			continue
		}
		inv, err := knowledge.Inspect(ctx, []string{p})
		if err != nil {
			out = append(out, Failed(name, err.Error(), "list directories of Markdown runbooks in knowledge.paths"))
			continue
		}
		if inv.ExcludedTotal > 0 {
			out = append(out, Warned(name, fmt.Sprintf("%s: %d Markdown file(s); %s", p, inv.Files, excludedDetail(inv)),
				"run `superbiz kb index` for the full list; fix or remove those files"))
			continue
		}
		if inv.Files == 0 {
			out = append(out, Warned(name, p+" holds no Markdown (*.md) files", "add the team's runbooks as .md files"))
			continue
		}
		out = append(out, Passed(name, fmt.Sprintf("%s: %d Markdown file(s)", p, inv.Files)))
	}
	return out
}

// excludedDetail names the first few files a knowledge path leaves out.
func excludedDetail(inv knowledge.Inventory) string {
	const shown = 3
	parts := make([]string, 0, shown)
	for i, e := range inv.Excluded {
		if i == shown {
			break
		}
		parts = append(parts, redact.StripControl(e.String()))
	}
	s := fmt.Sprintf("%d not indexed: %s", inv.ExcludedTotal, strings.Join(parts, "; "))
	if more := inv.ExcludedTotal - len(parts); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}
