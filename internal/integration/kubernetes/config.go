package kubernetes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/pkg/defaults"

	"github.com/superbiz/superbiz/internal/config"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// Config is the [[kubernetes]] share of the configuration: its summary
// lines and the rule its tags cannot state (namespace names). The table is
// declared in pkg/tools/kubernetes (kubetool.Source's tags) and handed to
// config by Schema: config has no field for it. Credentials stay in the
// kubeconfig, whose path is resolved at load.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: []kubetool.Source(nil), Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [[kubernetes]] table.
const table = "kubernetes"

// Entries are the configuration's [[kubernetes]] entries, as loaded.
func Entries(cfg *config.Config) []kubetool.Source {
	return config.TableOf[[]kubetool.Source](cfg, table)
}

// NewEntry is a [[kubernetes]] entry holding its declared defaults.
func NewEntry() kubetool.Source { return defaults.Of[kubetool.Source]() }

// SetEntries replaces the configuration's [[kubernetes]] entries (a test's,
// eval's recorded sources); other copies of cfg keep theirs.
func SetEntries(cfg *config.Config, es []kubetool.Source) { config.SetTable(cfg, table, es) }

// resolvePaths makes every entry's kubeconfig path absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	es := slices.Clone(Entries(cfg))
	for i, k := range es {
		if strings.TrimSpace(k.Kubeconfig) != "" {
			es[i].Kubeconfig = r.Abs(k.Kubeconfig)
		}
	}
	SetEntries(cfg, es)
	return nil
}

// checkConfig reports an allowlisted namespace Kubernetes would not name
// and a name given twice.
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, k := range Entries(cfg) {
		seen := map[string]bool{}
		for j, ns := range k.Namespaces {
			key := fmt.Sprintf("kubernetes[%d].namespaces[%d]", i, j)
			switch {
			case kubetool.NamespaceProblem(ns) != "":
				c.Bad(key, config.Show(ns), kubetool.NamespaceProblem(ns))
			case seen[ns]:
				c.Bad(key, config.Show(ns), "listed twice")
			}
			seen[ns] = true
		}
	}
}

// summaryLines is one line per source: where its kubeconfig and context
// come from and the namespaces it may read.
func summaryLines(cfg *config.Config) []string {
	var lines []string
	for _, k := range Entries(cfg) {
		kc := k.Kubeconfig
		if kc == "" {
			kc = "$KUBECONFIG or ~/.kube/config"
		}
		ctx := k.Context
		if ctx == "" {
			ctx = "current"
		}
		ns := "every namespace"
		if len(k.Namespaces) > 0 {
			ns = "namespaces " + strings.Join(k.Namespaces, ", ")
		}
		lines = append(lines, fmt.Sprintf("kubernetes %s: kubeconfig %s, context %s, %s (%s)", k.Name, kc, ctx, ns, cfg.Pairs("", k, "name", "kubeconfig", "context", "namespaces")))
	}
	if len(Entries(cfg)) == 0 {
		lines = append(lines, "kubernetes: none configured")
	}
	return lines
}

// example is the [[kubernetes]] entry of SPEC and the registry's tests.
const example = `[[kubernetes]]
name = "prod"
kubeconfig = "~/.kube/config"
namespaces = ["shop", "payments"]
`
