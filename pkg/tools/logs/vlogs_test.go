package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/vlogstest"
	"github.com/superbiz/superbiz/pkg/tools"
)

// parityStart is the fixtures' first entry.
var parityStart = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// parityLines are JSON entries as an application writes them, 7 s apart
// over 35 minutes: levels in several spellings and one entry without a
// level, two services and one entry without a service, numbers in the
// messages, a response time, a token (masked on both), a stack trace in a
// message.
func parityLines(n int) []string {
	var lines []string
	for i := range n {
		at := parityStart.Add(time.Duration(i) * 7 * time.Second).Format(time.RFC3339)
		switch {
		case i == 17:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"service":"cart","msg":"cache warm-up step %d done"}`, at, i))
		case i == 23:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"warning","msg":"disk 91%% full on /var/lib/%d"}`, at, i))
		case i%5 == 0:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"error","service":"checkout","msg":"Upstream payment Timeout after %dms order=%d","rt":%d.%d,"token":"tok-%d-secret"}`, at, 3000+i, 8800+i, i%7, i%9+1, i))
		case i%7 == 0:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"ERROR","service":"checkout","msg":"java.lang.IllegalStateException: pool exhausted %d\n\tat com.shop.Pool.get(Pool.java:42)\n\tat com.shop.Pay.run(Pay.java:7)\nCaused by: java.net.SocketTimeoutException: connect timed out","rt":%d}`, at, i, 100+i))
		case i%3 == 0:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"Warning","service":"cart","msg":"slow query took %dms on 10.0.0.%d","rt":%d.5}`, at, 200+i, i%9, i%13))
		default:
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"INFO","service":"cart","msg":"item %d added for user u-%d","rt":0.0%d}`, at, i, i*3, i%9+1))
		}
	}
	return lines
}

// paritySources are a file source and a VictoriaLogs source (a real single
// node, ingested through /insert/jsonline) holding the same entries.
func paritySources(t *testing.T, lines []string) *Tool {
	t.Helper()
	dir := t.TempDir()
	path := writeFile(t, dir, "app.log", strings.Join(lines, "\n")+"\n", false)
	s := vlogstest.Single(t)
	vlogstest.Ingest(t, s, lines, "service")
	files := Source{Name: "files", Paths: []string{filepath.Clean(path)}, Format: FormatJSON, Location: time.UTC}
	store := Source{Name: "store", Backend: BackendVictoriaLogs, URL: s.URL, Location: time.UTC}
	return newTool(t, files, store)
}

// answer runs input on source and returns the outcome and its result as
// JSON members.
func answer(t *testing.T, tool *Tool, source, input string) (tools.Outcome, map[string]json.RawMessage) {
	t.Helper()
	in := `{"source":"` + source + `",` + strings.TrimPrefix(input, "{")
	c, err := tool.Canonical(json.RawMessage(in))
	if err != nil {
		t.Fatalf("canonical %s: %v", in, err)
	}
	out := tool.Execute(context.Background(), tools.Call{ToolCallID: "call_1", Tool: ToolName, Input: c.Input, Now: parityStart.Add(time.Hour), MaxBytes: 64 << 10})
	if out.Status == tools.StatusError {
		t.Fatalf("%s: %s %v", in, out.ErrorCode, out.Detail)
	}
	b, err := tools.MarshalJSON(out.Result)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return out, m
}

// The same inputs on a file source and a VictoriaLogs source holding the
// same entries give the same answer, member by member: matched, entries
// newest first (fields, masking, a stack trace condensed), patterns,
// stats, histogram, coverage, level_unread and service_unread; only
// source and method differ. The empty window's account says the same.
func TestParityWithFiles(t *testing.T) {
	tool := paritySources(t, parityLines(300))
	for _, input := range []string{
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z"}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","level":"ERROR","limit":7}`,
		`{"start":"2026-11-20T09:05:00Z","end":"2026-11-20T09:20:00Z","level":"WARN"}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","service":"CART","limit":3}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","level":"warn","service":"cart","limit":3}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","contains":"TIMEOUT"}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","contains":"payment timeout"}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","stats":{"field":"rt","by":"service"}}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","level":"ERROR","stats":{"field":"rt"}}`,
		`{"start":"2026-11-20T09:02:30Z","end":"2026-11-20T09:33:00Z","histogram":"5m"}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:00:07Z"}`,
		`{"start":"2026-11-20T12:00:00Z","end":"2026-11-20T13:00:00Z"}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","contains":"nothing-like-this"}`,
	} {
		t.Run(input, func(t *testing.T) {
			fo, fr := answer(t, tool, "files", input)
			vo, vr := answer(t, tool, "store", input)
			if string(vr["method"]) != fmt.Sprintf("%q", MethodVLRead) {
				t.Errorf("method %s, want every match read", vr["method"])
			}
			for _, k := range []string{"source", "method"} {
				delete(fr, k)
				delete(vr, k)
			}
			fr["entries"], vr["entries"] = numbersAsText(t, fr["entries"]), numbersAsText(t, vr["entries"])
			for k := range fr {
				if !reflect.DeepEqual(fr[k], vr[k]) {
					t.Errorf("%s differs:\nfiles        %s\nvictorialogs %s", k, fr[k], vr[k])
				}
			}
			for k := range vr {
				if _, ok := fr[k]; !ok {
					t.Errorf("%s only on victorialogs: %s", k, vr[k])
				}
			}
			if fo.Status != vo.Status || strings.ReplaceAll(fo.EmptyWindow, "files", "store") != vo.EmptyWindow {
				t.Errorf("status %s / %s, account %q / %q", fo.Status, vo.Status, fo.EmptyWindow, vo.EmptyWindow)
			}
		})
	}
}

// numbersAsText is entries with every number field as its text: files read
// a JSON number as written, VictoriaLogs keeps every value as text, and
// query_logs gives a value in JSON's number syntax as a number.
func numbersAsText(t *testing.T, entries json.RawMessage) json.RawMessage {
	t.Helper()
	var es []map[string]any
	dec := json.NewDecoder(strings.NewReader(string(entries)))
	dec.UseNumber()
	if err := dec.Decode(&es); err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		fields, _ := e["fields"].(map[string]any)
		for k, v := range fields {
			if n, ok := v.(json.Number); ok {
				fields[k] = n.String()
			}
		}
	}
	b, err := json.Marshal(es)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Past the matches read here, the newest entries are still exact and the
// summaries are the server's over every match, which the method says:
// patterns as on files (grouped by VictoriaLogs, then by template), the
// histogram, and stats whose count, min, max and avg are exact.
func TestServerSummaries(t *testing.T) {
	tool := paritySources(t, parityLines(300))
	tool.vlRead = 40
	for _, input := range []string{
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","histogram":"5m","stats":{"field":"rt","by":"service"}}`,
		`{"start":"2026-11-20T09:02:30Z","end":"2026-11-20T09:33:00Z","level":"ERROR","histogram":"1m","stats":{"field":"rt"}}`,
		`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z","contains":"query","limit":5}`,
	} {
		t.Run(input, func(t *testing.T) {
			_, fr := answer(t, tool, "files", input)
			_, vr := answer(t, tool, "store", input)
			if want := fmt.Sprintf(MethodVLServer, maxVLGroups, otherTemplate); string(vr["method"]) != strconv.Quote(want) {
				t.Errorf("method %s, want the server's summaries said", vr["method"])
			}
			for _, k := range []string{"matched", "returned", "patterns", "histogram", "coverage", "in_window", "level_unread", "service_unread"} {
				if !reflect.DeepEqual(fr[k], vr[k]) {
					t.Errorf("%s differs:\nfiles        %s\nvictorialogs %s", k, fr[k], vr[k])
				}
			}
			if a, b := numbersAsText(t, fr["entries"]), numbersAsText(t, vr["entries"]); !reflect.DeepEqual(a, b) {
				t.Errorf("entries differ:\nfiles        %s\nvictorialogs %s", a, b)
			}
			var fs, vs []Stat
			_ = json.Unmarshal(fr["stats"], &fs)
			_ = json.Unmarshal(vr["stats"], &vs)
			if len(fs) != len(vs) {
				t.Fatalf("stats rows: files %v, victorialogs %v", fs, vs)
			}
			for i := range fs {
				f, v := fs[i], vs[i]
				if f.Key != v.Key || f.Count != v.Count || f.Min != v.Min || f.Max != v.Max || math.Abs(f.Avg-v.Avg) > 1e-6 || v.P50 < v.Min || v.P99 > v.Max {
					t.Errorf("stats row %d: files %+v, victorialogs %+v", i, f, v)
				}
			}
		})
	}
}

// A cluster with a storage node down answers query_logs with a tool error
// UNAVAILABLE naming the node and the window, never a partial answer; with
// both nodes up the same call counts every entry.
func TestClusterNodeDownThroughQueryLogs(t *testing.T) {
	front, nodes := vlogstest.Cluster(t)
	lines := parityLines(120)
	vlogstest.Ingest(t, front, lines, "service")
	for _, n := range nodes {
		vlogstest.Flush(t, n)
	}
	tool := newTool(t, Source{Name: "cluster", Backend: BackendVictoriaLogs, URL: front.URL, Location: time.UTC})
	call := func() tools.Outcome {
		c, err := tool.Canonical(json.RawMessage(`{"start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:40:00Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		return tool.Execute(context.Background(), tools.Call{Tool: ToolName, Input: c.Input, MaxBytes: 64 << 10})
	}
	if out := call(); out.Status == tools.StatusError || out.Result.(Result).Matched != len(lines) {
		t.Fatalf("both nodes up: %s %v %+v, want %d matched", out.ErrorCode, out.Detail, out.Result, len(lines))
	}
	nodes[1].Stop(t)
	out := call()
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeUnavailable || out.Result != nil {
		t.Fatalf("a node down: %s %s %+v, want ERROR %s and no result", out.Status, out.ErrorCode, out.Result, tools.CodeUnavailable)
	}
	if msg := out.Detail.Error(); !strings.Contains(msg, nodes[1].Addr) || !strings.Contains(msg, "2026-11-20T09:00:00Z..2026-11-20T09:40:00Z") || !strings.Contains(msg, "cluster") {
		t.Errorf("a node down: %q, want the node %s, the window and the source named", msg, nodes[1].Addr)
	}
}
