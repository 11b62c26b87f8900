package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// call is a stored query_kubernetes call (its canonical input) observed as
// status with result.
func call(t *testing.T, input string, status tools.EvidenceStatus, result string) runrecord.Invocation {
	t.Helper()
	obs, err := json.Marshal(map[string]any{"evidence_status": status, "result": json.RawMessage(result)})
	if err != nil {
		t.Fatal(err)
	}
	return runrecord.Invocation{Tool: kubetool.ToolName, Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
		EvidenceStatus: status, Input: json.RawMessage(input), Observation: obs}
}

// configured is a configuration with the [[kubernetes]] source prod (its
// kubeconfig and context set, namespaces shop and payments) and staging.
func configured() *config.Config {
	cfg := config.Defaults(Source{}.Config())
	prod, staging := NewEntry(), NewEntry()
	prod.Name, prod.Kubeconfig, prod.Context, prod.Namespaces = "prod", "/home/oncall/.kube/prod-Hunter2Secret.yaml", "prod-admin", []string{"shop", "payments"}
	staging.Name = "staging"
	SetEntries(&cfg, []kubetool.Source{prod, staging})
	return &cfg
}

// eval pack records the run's query_kubernetes calls (the source's name
// and namespace allowlist, never its kubeconfig or context) on the generic
// frozen.Recording, and eval answers them again with no cluster: the
// recorded observation for an equal call, NOT_RECORDED for another call on
// the recorded source, and the tool offered with the recorded allowlist.
func TestFreezeAndReplay(t *testing.T) {
	pods := `{"source":"prod","context":"prod-admin","view":"pods","namespace":"shop","start":"","end":"","coverage":"data","matched":1,"returned":1,"truncated":false,"pods":[{"namespace":"shop","name":"web","reason":"CrashLoopBackOff"}]}`
	p := &frozen.Pack{
		Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{
			call(t, `{"source":"prod","view":"pods","namespace":"shop","limit":20}`, tools.EvidenceFound, pods),
			call(t, `{"source":"prod","view":"events","namespace":"shop","limit":20}`, tools.NoEvidence, `{"source":"prod","view":"events","coverage":"none","matched":0,"returned":0,"truncated":false,"events":[]}`),
		}},
		Config: configured(), Dir: t.TempDir(),
	}
	if err := (Source{}).Freeze(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, RecordedFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Hunter2Secret", ".kube", "staging"} {
		if strings.Contains(string(b), s) {
			t.Errorf("%s holds %q:\n%s", RecordedFile, s, b)
		}
	}
	if want := "query_kubernetes prod: 2 recorded call(s)"; !strings.Contains(strings.Join(p.Lines(), "\n"), want) {
		t.Errorf("report %q lacks %q", p.Lines(), want)
	}

	sv, err := Source{}.Replay(frozen.Replay{Dir: p.Dir})
	if err != nil || sv == nil || sv.Missing() != "" {
		t.Fatalf("served %v, %v", sv, err)
	}
	srv, err := sv.Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults(Source{}.Config())
	if err := srv.Configure(&cfg); err != nil {
		t.Fatal(err)
	}
	es := Entries(&cfg)
	if len(es) != 1 || es[0].Name != "prod" || strings.Join(es[0].Namespaces, ",") != "shop,payments" || es[0].Kubeconfig != os.DevNull {
		t.Fatalf("configured %+v", es)
	}
	live, err := kubetool.New(es)
	if err != nil {
		t.Fatal(err)
	}
	adapters := srv.(frozen.Wrapper).Wrap([]tools.Adapter{live})
	for _, tt := range []struct {
		input, status, code, result string
	}{
		{`{"view":"pods","namespace":"shop"}`, string(tools.EvidenceFound), "", `"reason":"CrashLoopBackOff"`},
		{`{"source":"prod","view":"events","namespace":"shop"}`, string(tools.NoEvidence), "", `"coverage":"none"`},
		{`{"source":"prod","view":"nodes"}`, string(tools.StatusError), tools.CodeNotRecorded, ""},
	} {
		c, err := adapters[0].Canonical(json.RawMessage(tt.input))
		if err != nil {
			t.Fatalf("%s: %v", tt.input, err)
		}
		out := adapters[0].Execute(context.Background(), tools.Call{Tool: kubetool.ToolName, Input: c.Input})
		got, _ := out.Result.(json.RawMessage)
		if string(out.Status) != tt.status || out.ErrorCode != tt.code || !strings.Contains(string(got), tt.result) {
			t.Errorf("%s: %s %s %s (%v), want %s %s %s", tt.input, out.Status, out.ErrorCode, got, out.Detail, tt.status, tt.code, tt.result)
		}
	}
	if !strings.Contains(adapters[0].Definition().Description, "prod: namespaces shop, payments") {
		t.Errorf("the served tool lost the recorded allowlist: %s", adapters[0].Definition().Description)
	}
}

// A run without query_kubernetes evidence writes no recording; one that
// read a source the configuration no longer has is refused, naming it.
func TestFreezeRefusesAGoneSource(t *testing.T) {
	p := &frozen.Pack{Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{
		call(t, `{"source":"prod","view":"pods"}`, tools.StatusError, `null`),
	}}, Config: configured(), Dir: t.TempDir()}
	if err := (Source{}).Freeze(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, RecordedFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run without evidence wrote %s: %v", RecordedFile, err)
	}
	p.Run.Invocations = append(p.Run.Invocations, call(t, `{"source":"dev","view":"pods"}`, tools.EvidenceFound, `{"source":"dev"}`))
	if err := (Source{}).Freeze(context.Background(), p); !errors.Is(err, frozen.ErrRefused) || !strings.Contains(err.Error(), `"dev"`) {
		t.Errorf("a gone source: %v", err)
	}
}
