package kubernetes

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// A namespace of the allowlist Kubernetes would not name, or listed twice,
// is reported at load naming the key; a timeout out of range too.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "bad namespace", TOML: "[[kubernetes]]\nname = \"k\"\nnamespaces = [\"Shop_1\"]\n", Want: []string{`kubernetes[0].namespaces[0] = "Shop_1" in `, "not a namespace name"}},
		{Name: "namespace twice", TOML: "[[kubernetes]]\nname = \"k\"\nnamespaces = [\"shop\", \"shop\"]\n", Want: []string{`kubernetes[0].namespaces[1] = "shop" in `, "listed twice"}},
		{Name: "timeout too long", TOML: "[[kubernetes]]\nname = \"k\"\ntimeout = \"1h\"\n", Want: []string{"kubernetes[0].timeout"}},
	})
}

// The summary says where the kubeconfig and context come from and the
// namespaces; a relative kubeconfig is read from the configuration's folder.
func TestSummary(t *testing.T) {
	cfg, _, err := configtest.Load(t, "[[kubernetes]]\nname = \"prod\"\nkubeconfig = \"kube/prod.yaml\"\ncontext = \"ro\"\nnamespaces = [\"shop\"]\n[[kubernetes]]\nname = \"dev\"\n", nil, Source{}.Config())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(Entries(cfg)[0].Kubeconfig, "/kube/prod.yaml") || !strings.HasPrefix(Entries(cfg)[0].Kubeconfig, "/") {
		t.Errorf("kubeconfig = %q, want it absolute beside the file", Entries(cfg)[0].Kubeconfig)
	}
	s := cfg.String()
	for _, want := range []string{"kubernetes prod: kubeconfig /", "context ro, namespaces shop (timeout 10s", "kubernetes dev: kubeconfig $KUBECONFIG or ~/.kube/config, context current, every namespace"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
