package runbooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// Doctor checks each knowledge path as `kb index` reads it, then the
// embedding model of [knowledge] embed_model.
func (Source) Doctor(ctx context.Context, cfg *config.Config, env integration.Env) []doctor.Result {
	return append(paths(ctx, cfg), embed(ctx, cfg, env.Provider))
}

// paths checks each knowledge path: it exists, is a directory (or file) of
// Markdown, and nothing under it is left out (links leading outside,
// special files, oversized runbooks). A missing path that nobody chose (the
// default ./runbooks) is only a warning: superbiz runs without runbooks.
func paths(ctx context.Context, cfg *config.Config) []doctor.Result {
	var out []doctor.Result
	for _, p := range Paths(cfg) {
		const name = "knowledge"
		_, err := os.Stat(p)
		if err != nil {
			detail := fmt.Sprintf("%s: %v", p, errors.Unwrap(err))
			if errors.Is(err, fs.ErrNotExist) {
				detail = p + " does not exist"
			}
			setBy := cfg.SetBy("knowledge.paths")
			if setBy == "" {
				out = append(out, doctor.Warned(name, detail, "put the team's Markdown runbooks there, or list their directories in knowledge.paths of the config file"))
				continue
			}
			out = append(out, doctor.Failed(name, detail, "create it or fix knowledge.paths in "+setBy))
			continue
		}
		inv, err := knowledge.Inspect(ctx, []string{p})
		if err != nil {
			out = append(out, doctor.Failed(name, err.Error(), "list directories of Markdown runbooks in knowledge.paths"))
			continue
		}
		if inv.ExcludedTotal > 0 {
			out = append(out, doctor.Warned(name, fmt.Sprintf("%s: %d Markdown file(s); %s", p, inv.Files, excludedDetail(inv)),
				"run `superbiz kb index` for the full list; fix or remove those files"))
			continue
		}
		if inv.Files == 0 {
			out = append(out, doctor.Warned(name, p+" holds no Markdown (*.md) files", "add the team's runbooks as .md files"))
			continue
		}
		out = append(out, doctor.Passed(name, fmt.Sprintf("%s: %d Markdown file(s)", p, inv.Files)))
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
		parts = append(parts, termsafe.Strip(e.String()))
	}
	s := fmt.Sprintf("%d not indexed: %s", inv.ExcludedTotal, strings.Join(parts, "; "))
	if more := inv.ExcludedTotal - len(parts); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

// embedCheckName is the doctor line of [knowledge] embed_model.
const embedCheckName = "knowledge embed"

// embed says whether runbook search is semantic: not configured (BM25
// only), ok (the model embedded a probe text), or unavailable (BM25 only,
// with the provider's fix).
func embed(ctx context.Context, cfg *config.Config, p integration.Provider) doctor.Result {
	name := Of(cfg).EmbedModel
	if name == "" {
		return doctor.Skipped(embedCheckName, "not configured: runbook search is BM25 only (set [knowledge] embed_model to an embedding model of the model server for semantic search)")
	}
	c, err := embedClient(cfg, p)
	if err != nil {
		return doctor.Failed(embedCheckName, err.Error(), "fix "+cfg.Model.URLKey()+" and knowledge.embed_model in the config")
	}
	ectx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	vecs, err := c.Embed(ectx, []string{"superbiz doctor"})
	if err != nil {
		return doctor.Warned(embedCheckName, fmt.Sprintf("%s unavailable, runbook search is BM25 only: %v", name, err), p.EmbedHint(name, c.Host(), err))
	}
	return doctor.Passed(embedCheckName, fmt.Sprintf("%s embeds (%d dimensions): runbook search fuses BM25 and vectors", name, len(vecs[0])))
}
