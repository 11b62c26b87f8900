package kubernetes

import (
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// Config is the [[kubernetes]] share of the configuration: its summary
// lines and the rule its tags cannot state (namespace names). The table is
// declared in pkg/tools/kubernetes; credentials stay in the kubeconfig,
// whose path is resolved at load.
func (Source) Config() config.Part {
	return config.Part{Table: "kubernetes", Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// resolvePaths makes every entry's kubeconfig path absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	for i, k := range cfg.Kubernetes {
		if strings.TrimSpace(k.Kubeconfig) != "" {
			cfg.Kubernetes[i].Kubeconfig = r.Abs(k.Kubeconfig)
		}
	}
	return nil
}

// checkConfig reports an allowlisted namespace Kubernetes would not name
// and a name given twice.
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, k := range cfg.Kubernetes {
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
	for _, k := range cfg.Kubernetes {
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
	if len(cfg.Kubernetes) == 0 {
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
