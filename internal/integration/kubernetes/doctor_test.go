package kubernetes

import (
	"context"
	"strings"
	"testing"
	"time"

	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/kubetest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// On the API server .ci/kubernetes.sh starts, doctor passes the read-only
// account, warns that the powerful one can delete pods and read secrets,
// warns that an account bound to nothing may not list, and fails an unknown
// token and a server that is down, naming the context; no token is printed.
func TestDoctorOnRealServer(t *testing.T) {
	adm := kubetest.NewAdmin(t)
	ns := adm.Namespace("doctor")
	dir := t.TempDir()
	c := config.Defaults(Source{}.Config())
	cfg := &c
	cfg.File = "superbiz.toml"
	add := func(name, kubeconfig string) {
		SetEntries(cfg, append(Entries(cfg), kubetool.Source{Name: name, Kubeconfig: kubeconfig, Timeout: 10 * time.Second}))
	}
	add("reader", kubetest.Kubeconfig(t, kubetest.EnvReader))
	add("power", kubetest.Kubeconfig(t, kubetest.EnvPower))
	add("nobody", adm.Token(ns, dir))
	add("stranger", kubetest.WriteKubeconfig(t, dir, "stranger", adm.Host(), "stranger-Hunter2Secret"))
	add("down", kubetest.WriteKubeconfig(t, dir, "down", testenv.ClosedURL(t), "down-Hunter2Secret"))
	add("missing", dir+"/no-such.kubeconfig")

	got := Source{}.Doctor(context.Background(), cfg, integration.Env{})
	want := []struct {
		status doctor.Status
		says   []string
	}{
		{doctor.Pass, []string{"context superbiz-reader", "read-only"}},
		{doctor.Warn, []string{"can delete pods", "can read secrets", "still only reads"}},
		{doctor.Warn, []string{"may not list pods", "list nodes"}},
		{doctor.Fail, []string{"context stranger", "401"}},
		{doctor.Fail, []string{"context down", "reachable"}},
		{doctor.Fail, []string{"no-such.kubeconfig"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for i, r := range got {
		text := r.Detail + " " + r.Hint
		if r.Status != want[i].status {
			t.Errorf("%s: status %v (%s), want %v", r.Check, r.Status, text, want[i].status)
		}
		for _, s := range want[i].says {
			if !strings.Contains(text, s) {
				t.Errorf("%s: %q does not say %q", r.Check, text, s)
			}
		}
		if strings.Contains(text, "Hunter2Secret") {
			t.Errorf("%s: a token is printed: %s", r.Check, text)
		}
	}
}
