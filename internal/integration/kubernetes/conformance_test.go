package kubernetes_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/superbiz/superbiz/internal/conformance"
	"github.com/superbiz/superbiz/internal/integration/kubernetes"
	"github.com/superbiz/superbiz/internal/kubetest"
)

// query_kubernetes on the real API server of .ci/kubernetes.sh, read as
// the read-only account: a namespace with a crashing pod holds its reason,
// an empty namespace holds no pod.
func TestConformance(t *testing.T) {
	conformance.Run(t, kubernetes.Source{}, func(t *testing.T) conformance.Fixture {
		reader := kubetest.Kubeconfig(t, kubetest.EnvReader)
		adm := kubetest.NewAdmin(t)
		ns, empty := adm.Namespace("conf"), adm.Namespace("conf-empty")
		adm.Pod(ns, "web", "node-a", map[string]any{"phase": "Running",
			"containerStatuses": []any{kubetest.ContainerStatus(false, 2, map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff"}}, nil)}})
		return conformance.Fixture{
			Config:  fmt.Sprintf("[[kubernetes]]\nname = \"prod\"\nkubeconfig = %q\n", reader),
			Call:    json.RawMessage(`{"source":"prod","view":"pods","namespace":"` + ns + `"}`),
			Marker:  "CrashLoopBackOff",
			Empty:   json.RawMessage(`{"source":"prod","view":"pods","namespace":"` + empty + `"}`),
			NameKey: "source",
		}
	})
}
