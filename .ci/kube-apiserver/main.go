// Command kube-apiserver builds the upstream Kubernetes API server from the
// k8s.io/kubernetes module so the tests of query_kubernetes run against a real
// one (go install of k8s.io/kubernetes/cmd/kube-apiserver is refused because
// that module replaces its staging modules with local paths).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
