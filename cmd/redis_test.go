package cmd

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/redistest"
	"github.com/superbiz/superbiz/internal/testenv"
	redistool "github.com/superbiz/superbiz/pkg/tools/redis"
)

// redisTurns are a diagnosis that reads the cache's info view and cites it.
func redisTurns() []ollamatest.Turn {
	draft := `{"conclusion":{"summary":"The cache evicts keys: it is full at maxmemory under allkeys-lru.","root_cause":"The cache is full and evicts keys (allkeys-lru at maxmemory), so reads miss.","confidence":"MEDIUM"},` +
		`"analysis":[{"type":"FINDING","claim":"The cache runs maxmemory_policy allkeys-lru at its maxmemory and its evicted_keys counter is above zero.","scope":"redis cache, INFO memory and stats","tool_call_ids":["call_r1"]}],` +
		`"action_plan":[{"priority":"P1","step":"Raise maxmemory or shorten the TTLs of the largest keys.","risk":"LOW"}],"recommendations":["Alert on evicted_keys."],` +
		`"limitations":{"scope":"one Redis server's INFO.","missing_info":["which keys are evicted"]}}`
	return []ollamatest.Turn{
		{ToolCalls: []ollamatest.ToolCall{{ID: "call_r1", Name: redistool.ToolName, Args: `{"input":{"source":"cache","view":"info"}}`}}},
		{Content: []string{draft}},
		{Content: []string{`{"verdict":"SUPPORTED","reasons":["the finding matches the cited INFO"]}`}},
	}
}

// A cache that evicts keys, diagnosed through each model wire on a real
// redis-server read by a read-only ACL user: the released diagnosis cites
// query_redis, the model received the INFO fields it rests on, and no
// password shows anywhere. The run is then frozen into an eval pack (the
// recorded view, not the server) and graded again with the server gone.
func TestRedisDiagnosisThroughEachProvider(t *testing.T) {
	testenv.SkipShort(t, "starts a real redis-server")
	const pw = "diag-Scenario-51f0"
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		rs := redistest.Start(t, "maxmemory 1mb", "maxmemory-policy allkeys-lru", "user diag on >"+pw+" "+redistool.ACLRules)
		value := strings.Repeat("v", 8<<10)
		for i := range 300 {
			if _, err := redistest.Command(rs.Addr, "SET", fmt.Sprintf("session:%d", i), value); err != nil {
				t.Fatalf("fill the cache: %v", err)
			}
		}
		dir := t.TempDir()
		cfg := filepath.Join(dir, "superbiz.toml")
		fixture.WriteFile(t, cfg, fmt.Sprintf("[knowledge]\npaths = []\n\n[[redis]]\nname = \"cache\"\nurl = %q\npassword_env = \"CACHE_PW\"\n", rs.URL("diag")))
		srv := providertest.Start(t, prov)
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		env["CACHE_PW"] = pw
		env["SUPERBIZ_CONFIG"] = cfg
		srv.Script(redisTurns()...)
		code, out, errOut := cli(t, env, "diagnose", "-o", "json", "why do session reads miss the cache?")
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		got := decodeDiagnosed(t, out)
		if got.ReleaseOutcome != "SUCCESS" || len(got.Checks) != 1 || got.Checks[0].Tool != redistool.ToolName || got.Checks[0].EvidenceStatus != "EVIDENCE_FOUND" {
			t.Fatalf("outcome %s, checks %+v\n%s\n%s", got.ReleaseOutcome, got.Checks, out, errOut)
		}
		if len(got.Result.Findings) != 1 || !strings.Contains(strings.Join(got.Result.Findings[0].Sources, ","), redistool.ToolName) {
			t.Errorf("the finding does not cite query_redis: %+v", got.Result.Findings)
		}
		observations := toolMessages(srv)
		for _, want := range []string{`"maxmemory_policy":"allkeys-lru"`, `"evicted_keys":"`} {
			if !strings.Contains(observations, want) {
				t.Errorf("the model did not receive %s:\n%.3000s", want, observations)
			}
		}
		if strings.Contains(observations, `"evicted_keys":"0"`) {
			t.Errorf("the cache evicted nothing, so the scenario proves nothing:\n%.3000s", observations)
		}
		for _, b := range append(srv.Bodies(), []byte(out+errOut)) {
			if strings.Contains(string(b), pw) {
				t.Fatalf("the password reached the model or the output")
			}
		}

		// Frozen, then graded with the configuration (and the server) gone.
		rs.Stop()
		packAndGrade(t, env, srv, redisTurns(), dir, "cache-full", "evicts", "query_redis cache: 1 recorded call(s)", "SUPERBIZ_CONFIG", "CACHE_PW")
	})
}
