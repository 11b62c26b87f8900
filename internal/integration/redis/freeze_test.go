package redis

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
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// call is a stored query_redis call of view on source, observed as status
// with result.
func call(source, view string, status tools.EvidenceStatus, result string) runrecord.Invocation {
	in, _ := json.Marshal(map[string]string{"source": source, "view": view})
	obs, _ := json.Marshal(map[string]any{"evidence_status": status, "result": json.RawMessage(result)})
	return runrecord.Invocation{Tool: redistool.ToolName, Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
		EvidenceStatus: status, Input: in, Observation: obs}
}

// configured is a configuration with the [[redis]] sources names, their
// URL carrying a user and their password in a variable.
func configured(names ...string) *config.Config {
	cfg := config.Defaults(Source{}.Config())
	for _, n := range names {
		r := NewEntry()
		r.Name, r.URL, r.PasswordEnv, r.Secret = n, "redis://diag@10.1.2.3:6379/0", "REDIS_PW", config.NewSecret("Hunter2Secret")
		config.SetTable(&cfg, table, append(Entries(&cfg), r))
	}
	return &cfg
}

// eval pack records the run's query_redis calls (the source's name, never
// its URL or password) and eval answers them again with no server: the
// recorded observation for the same view, NOT_RECORDED for another view on
// a recorded source.
func TestFreezeAndReplay(t *testing.T) {
	info := `{"source":"cache","view":"info","mode":"standalone","nodes":[{"addr":"10.1.2.3:6379","sections":{"memory":{"maxmemory_policy":"noeviction"}}}],"truncated":false}`
	p := &frozen.Pack{
		Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{
			call("cache", "info", tools.EvidenceFound, info),
			call("cache", "latency", tools.NoEvidence, `{"source":"cache","view":"latency","mode":"standalone","nodes":[],"coverage":"none","truncated":false}`),
		}},
		Config: configured("cache", "sessions"), Dir: t.TempDir(),
	}
	if err := (Source{}).Freeze(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, RecordedFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Hunter2Secret", "diag@", "sessions", "REDIS_PW"} {
		if strings.Contains(string(b), s) {
			t.Errorf("%s holds %q:\n%s", RecordedFile, s, b)
		}
	}
	if want := "query_redis cache: 2 recorded call(s)"; !strings.Contains(strings.Join(p.Lines(), "\n"), want) {
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
	if len(Entries(&cfg)) != 1 || Entries(&cfg)[0].Name != "cache" || Entries(&cfg)[0].URL != recordedURL {
		t.Fatalf("configured %+v", Entries(&cfg))
	}
	live, err := redistool.New(Entries(&cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	adapters := srv.(frozen.Wrapper).Wrap([]tools.Adapter{live})
	for _, tt := range []struct {
		input, status, code, result string
	}{
		{`{"view":"info"}`, string(tools.EvidenceFound), "", `"maxmemory_policy":"noeviction"`},
		{`{"source":"cache","view":"latency"}`, string(tools.NoEvidence), "", `"coverage":"none"`},
		{`{"source":"cache","view":"slowlog"}`, string(tools.StatusError), tools.CodeNotRecorded, ""},
	} {
		c, err := adapters[0].Canonical(json.RawMessage(tt.input))
		if err != nil {
			t.Fatalf("%s: %v", tt.input, err)
		}
		out := adapters[0].Execute(context.Background(), tools.Call{Tool: redistool.ToolName, Input: c.Input})
		got, _ := out.Result.(json.RawMessage)
		if string(out.Status) != tt.status || out.ErrorCode != tt.code || !strings.Contains(string(got), tt.result) {
			t.Errorf("%s: %s %s %s (%v), want %s %s %s", tt.input, out.Status, out.ErrorCode, got, out.Detail, tt.status, tt.code, tt.result)
		}
	}
}

// A run without query_redis evidence writes no recording; one that read a
// source the configuration no longer has is refused, naming it.
func TestFreezeRefusesAGoneSource(t *testing.T) {
	p := &frozen.Pack{Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{
		call("cache", "info", tools.StatusError, `null`),
	}}, Config: configured(), Dir: t.TempDir()}
	if err := (Source{}).Freeze(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, RecordedFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run without evidence wrote %s: %v", RecordedFile, err)
	}
	p.Run.Invocations = append(p.Run.Invocations, call("cache", "info", tools.EvidenceFound, `{"source":"cache"}`))
	if err := (Source{}).Freeze(context.Background(), p); !errors.Is(err, frozen.ErrRefused) || !strings.Contains(err.Error(), `"cache"`) {
		t.Errorf("a gone source: %v", err)
	}
}

// A recording eval pack did not write is the pack's error, naming the file
// and the key.
func TestRecordingErrors(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"unknown member", `{"tool":"query_redis","sources":[],"calls":[],"url":"x"}`, "unknown field"},
		{"other tool", `{"tool":"query_logs","sources":["a"],"calls":[]}`, "tool"},
		{"empty name", `{"tool":"query_redis","sources":[""],"calls":[]}`, "sources[0]"},
		{"input", `{"tool":"query_redis","sources":["a"],"calls":[{"input":[1],"evidence_status":"NO_EVIDENCE"}]}`, "calls[0].input"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RecordedFile), []byte(tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := (Source{}).Replay(frozen.Replay{Dir: dir}); err == nil || !strings.Contains(err.Error(), RecordedFile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// A name no configuration accepts is refused when the attempt adds it.
	rec := &frozen.Recording{Tool: redistool.ToolName, Sources: []string{"no such name!"}}
	cfg := config.Defaults(Source{}.Config())
	srv, _ := rec.Serve(addRecorded).Start(context.Background(), "")
	if err := srv.Configure(&cfg); err == nil {
		t.Error("a bad source name was added")
	}
}
