package kubernetes

import "time"

// Source is one [[kubernetes]] entry: a cluster query_kubernetes may read,
// reached with the credentials of a kubeconfig context (tokens, client
// certificates, exec plugins as client-go runs them); nothing secret is
// written in superbiz's file. Its tags give the table's keys, defaults and
// bounds (internal/config reads them).
type Source struct {
	Name string `toml:"name" json:"name"`
	// Kubeconfig is the kubeconfig's path; "" is $KUBECONFIG, then ~/.kube/config.
	Kubeconfig string `toml:"kubeconfig" json:"kubeconfig"`
	// Context is the kubeconfig context; "" is its current context.
	Context string `toml:"context" json:"context"`
	// Namespaces, when set, are the only namespaces a call may read.
	Namespaces []string `toml:"namespaces" json:"namespaces"`
	// Timeout bounds one call, every page of its lists included.
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"10s" min:"100ms" max:"5m"`
}
