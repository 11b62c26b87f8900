package kubernetes

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"kubernetes[].name":       {Default: "required", Accepted: "as `logs[].name`; unique"},
		"kubernetes[].kubeconfig": {Type: "path", Default: "`$KUBECONFIG`, then `~/.kube/config`", Accepted: "the kubeconfig file (relative to the configuration's folder; `~/` is the home)"},
		"kubernetes[].context":    {Default: "the current context", Accepted: "the kubeconfig context whose cluster and credentials are used"},
		"kubernetes[].namespaces": {Default: "none (every namespace)", Accepted: "the only namespaces a call may read; each a namespace name, once"},
		"kubernetes[].timeout":    {Accepted: ": limit of one call, every page of its lists included"},
	}
}
