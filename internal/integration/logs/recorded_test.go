package logs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// eval pack records the run's query_logs calls on a victorialogs source
// (its name, never its URL, tenant or credential) and eval answers them
// again with no server: the recorded observation for an equal input,
// NOT_RECORDED for another input on the recorded source.
func TestFreezeAndReplayVictoriaLogs(t *testing.T) {
	src := vlSource("store", "http://10.1.2.3:9428")
	src.Tenant, src.BearerTokenEnv, src.Secret = "42:7", "VL_TOKEN", config.NewSecret("Hunter2Secret")
	cfg := config.Defaults(Source{}.Config())
	SetEntries(&cfg, src)
	tool, err := logtool.New(Entries(&cfg))
	if err != nil {
		t.Fatal(err)
	}
	canonical := func(tool tools.Adapter, in string) json.RawMessage {
		c, err := tool.Canonical(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		return c.Input
	}
	asked := canonical(tool, `{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z","level":"ERROR"}`)
	result := `{"source":"store","window":{"start":"2026-11-20T09:00:00.000Z","end":"2026-11-20T09:30:00.000Z"},"matched":3,"returned":0,"truncated":true,"entries":[],"patterns":[{"template":"payment timeout","count":3,"first_ts":"2026-11-20T09:01:00.000Z","last_ts":"2026-11-20T09:02:00.000Z"}],"method":"victorialogs","coverage":"data","in_window":9}`
	obs, _ := json.Marshal(map[string]any{"evidence_status": tools.EvidenceFound, "result": json.RawMessage(result)})
	p := &frozen.Pack{
		Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{{Tool: logtool.ToolName, Kind: runrecord.KindEvidence,
			Status: runrecord.InvocationCompleted, EvidenceStatus: tools.EvidenceFound, Input: asked, Observation: obs}}},
		Config: &cfg, Dir: t.TempDir(),
	}
	if err := (Source{}).Freeze(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, RecordedFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Hunter2Secret", "10.1.2.3", "42:7", "VL_TOKEN"} {
		if strings.Contains(string(b), s) {
			t.Errorf("%s holds %q:\n%s", RecordedFile, s, b)
		}
	}
	if want := "query_logs store: 1 recorded call(s)"; !strings.Contains(strings.Join(p.Lines(), "\n"), want) {
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
	replayCfg := config.Defaults(Source{}.Config())
	if err := srv.Configure(&replayCfg); err != nil {
		t.Fatal(err)
	}
	if got := Entries(&replayCfg); len(got) != 1 || got[0].URL != recordedURL || got[0].Backend != logtool.BackendVictoriaLogs {
		t.Fatalf("configured %+v", got)
	}
	live, err := logtool.New(Entries(&replayCfg))
	if err != nil {
		t.Fatal(err)
	}
	adapters := srv.(frozen.Wrapper).Wrap([]tools.Adapter{live})
	for _, tt := range []struct {
		input, status, code, result string
	}{
		{`{"source":"store","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z","level":"error"}`, string(tools.EvidenceFound), "", `"template":"payment timeout"`},
		{`{"source":"store","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z"}`, string(tools.StatusError), tools.CodeNotRecorded, ""},
	} {
		out := adapters[0].Execute(context.Background(), tools.Call{Tool: logtool.ToolName, Input: canonical(adapters[0], tt.input)})
		got, _ := out.Result.(json.RawMessage)
		if string(out.Status) != tt.status || out.ErrorCode != tt.code || !strings.Contains(string(got), tt.result) {
			t.Errorf("%s: %s %s %s (%v), want %s %s %s", tt.input, out.Status, out.ErrorCode, got, out.Detail, tt.status, tt.code, tt.result)
		}
	}
}
