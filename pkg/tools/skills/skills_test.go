package skills

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var builtinNames = []string{
	"diagnose-jvm-memory-risk",
	"diagnose-mysql-connection-pool",
	"diagnose-payment-timeout",
	"diagnose-pod-restarts",
	"diagnose-redis-timeout",
	"diagnose-slow-response",
}

func TestLoadBuiltins(t *testing.T) {
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), ","); got != strings.Join(builtinNames, ",") {
		t.Fatalf("names = %s", got)
	}
	if len(c.Problems()) != 0 {
		t.Fatalf("problems: %v", c.Problems())
	}
	for _, p := range c.List() {
		if p.Source != SourceBuiltin {
			t.Errorf("%s: source %q", p.Name, p.Source)
		}
		if len(p.Body) > 3<<10 {
			t.Errorf("%s: body %d bytes, want <= 3 KiB", p.Name, len(p.Body))
		}
		// Each playbook names its evidence tools, stop condition and low-confidence behaviour.
		for _, want := range []string{"lookup_knowledge", "query_logs", "query_mysql", "## When to stop", "## Low confidence", "conclusion", "NEGATIVE_OBSERVATION", "FINDING"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("%s: body lacks %q", p.Name, want)
			}
		}
	}
}

// The playbooks whose evidence lives in metrics name query_metrics with
// concrete metrics, and say what to do without a metrics source: list the
// metrics that could not be checked in limitations.
func TestBuiltinMetricsPlaybooks(t *testing.T) {
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, metric := range map[string]string{
		"diagnose-slow-response":   "http_server_requests_seconds_bucket",
		"diagnose-jvm-memory-risk": `jvm_memory_used_bytes{area="heap"`,
		"diagnose-redis-timeout":   "redis_connected_clients",
	} {
		p, ok := c.Get(name)
		if !ok {
			t.Fatalf("no built-in playbook %s", name)
		}
		for _, want := range []string{"`query_metrics` when offered", metric, "When `query_metrics` is not offered (no metrics source), list the metrics you could not check", "in `limitations`"} {
			if !strings.Contains(strings.Join(strings.Fields(p.Body), " "), want) {
				t.Errorf("%s: body lacks %q", name, want)
			}
		}
	}
}

// TestBuiltinToolInputs keeps the playbooks in step with docs/SPEC.md#evidence-tools: every
// JSON-ish tool input they show uses only the documented field names.
func TestBuiltinToolInputs(t *testing.T) {
	allowed := map[string]bool{
		"query": true, "top_k": true, // lookup_knowledge
		"source": true, "service": true, "level": true, "contains": true, "start": true, "end": true, "since": true, "limit": true, // query_logs
		"database": true, "sql": true, "max_rows": true, // query_mysql
		"step": true,                                                                  // query_metrics (with query, source, start, end, since)
		"view": true, "namespace": true, "selector": true, "name": true, "type": true, // query_kubernetes (with source, start, end, limit)
	}
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.List() {
		for _, m := range fieldRE.FindAllStringSubmatch(p.Body, -1) {
			if !allowed[m[1]] {
				t.Errorf("%s: unknown tool input field %q", p.Name, m[1])
			}
		}
		for _, since := range []string{`"since": "12h"`, `"since": "24h"`, `"since": "7d"`} {
			if strings.Contains(p.Body, since) {
				t.Errorf("%s: %s exceeds the default max_window of 6h", p.Name, since)
			}
		}
	}
}

// fieldRE finds a JSON member name: a quoted word followed by a colon.
var fieldRE = regexp.MustCompile(`"([A-Za-z_]+)":`)

func TestLoadUserDirs(t *testing.T) {
	user, user2 := filepath.Join("testdata", "user"), filepath.Join("testdata", "user2")
	missing := filepath.Join("testdata", "does-not-exist")
	c, err := Load([]string{user, user2, missing})
	if err != nil {
		t.Fatal(err)
	}
	kafka, ok := c.Get("check-kafka-lag")
	if !ok || kafka.Source != filepath.Join(user, "check-kafka-lag", FileName) {
		t.Fatalf("check-kafka-lag = %+v, %v", kafka, ok)
	}
	if kafka.Description != "Consumer lag grows on a Kafka topic; find the slow consumer." {
		t.Fatalf("description %q", kafka.Description)
	}
	if inodes, ok := c.Get("check-disk-inodes"); !ok || inodes.Body != "Run df -i." {
		t.Fatalf("CRLF playbook = %+v, %v", inodes, ok)
	}
	if redis, _ := c.Get("diagnose-redis-timeout"); redis.Source != SourceBuiltin {
		t.Fatalf("built-in overridden by %s", redis.Source)
	}
	if _, ok := c.Get("another-name"); ok {
		t.Fatal("playbook with a mismatched name loaded")
	}
	list := c.List()
	for i := 1; i < len(list); i++ {
		if list[i-1].Name >= list[i].Name {
			t.Fatalf("List not sorted: %s before %s", list[i-1].Name, list[i].Name)
		}
	}
	if len(list) != len(builtinNames)+2 {
		t.Fatalf("List has %d playbooks: %v", len(list), c.Names())
	}

	wantProblems := map[string]string{
		filepath.Join(user, "Bad_Name", FileName):               "invalid name",
		filepath.Join(user, "diagnose-redis-timeout", FileName): "built-in",
		filepath.Join(user, "missing-description", FileName):    "missing description",
		filepath.Join(user, "no-front-matter", FileName):        "no front matter",
		filepath.Join(user, "no-skill-file", FileName):          "missing SKILL.md",
		filepath.Join(user, "oversize", FileName):               "larger than",
		filepath.Join(user, "unclosed", FileName):               "not closed",
		filepath.Join(user, "wrong-name", FileName):             "differs from its directory",
		filepath.Join(user2, "check-kafka-lag", FileName):       "duplicate",
		missing: "does not exist",
	}
	got := map[string]string{}
	for _, err := range c.Problems() {
		var p *Problem
		if !errors.As(err, &p) {
			t.Fatalf("problem %v is not a *Problem", err)
		}
		got[p.Path] = err.Error()
	}
	for path, want := range wantProblems {
		msg, ok := got[path]
		if !ok {
			t.Errorf("no problem reported for %s", path)
			continue
		}
		if !strings.Contains(msg, want) || !strings.Contains(msg, path) {
			t.Errorf("problem for %s = %q, want it to mention %q and the path", path, msg, want)
		}
	}
	if len(got) != len(wantProblems) {
		t.Errorf("got %d problems, want %d: %v", len(got), len(wantProblems), got)
	}
	var override bool
	for _, err := range c.Problems() {
		override = override || errors.Is(err, ErrBuiltinOverride)
	}
	if !override {
		t.Error("override problem does not wrap ErrBuiltinOverride")
	}
}

func TestParse(t *testing.T) {
	long := strings.Repeat("d", MaxDescriptionLen+1)
	tests := []struct {
		name, in string
		wantErr  string
		wantName string
		wantDesc string
		wantBody string
	}{
		{name: "minimal", in: "---\nname: a\ndescription: b\n---\nbody", wantName: "a", wantDesc: "b", wantBody: "body"},
		{name: "quoted", in: "---\nname: 'a-b'\ndescription: \"x: y\"\n---\n\n body \n", wantName: "a-b", wantDesc: "x: y", wantBody: "body"},
		{name: "bom and comment", in: "\uFEFF---\n# c\nname: a1\n\ndescription: d\n---\nb", wantName: "a1", wantDesc: "d", wantBody: "b"},
		{name: "empty input", in: "", wantErr: "no front matter"},
		{name: "no front matter", in: "# title\nbody", wantErr: "no front matter"},
		{name: "unclosed", in: "---\nname: a\ndescription: b\nbody", wantErr: "not closed"},
		{name: "missing name", in: "---\ndescription: b\n---\nbody", wantErr: "missing name"},
		{name: "missing description", in: "---\nname: a\n---\nbody", wantErr: "missing description"},
		{name: "empty front matter", in: "---\n---\nbody", wantErr: "missing name"},
		{name: "unknown key", in: "---\nname: a\ndescription: b\nversion: 2\n---\nbody", wantErr: "unknown front matter key \"version\""},
		{name: "duplicate key", in: "---\nname: a\nname: a\ndescription: b\n---\nbody", wantErr: "appears twice"},
		{name: "not key value", in: "---\nname a\ndescription: b\n---\nbody", wantErr: "not 'key: value'"},
		{name: "unterminated quote", in: "---\nname: \"a\ndescription: b\n---\nbody", wantErr: "unterminated quote"},
		{name: "upper-case name", in: "---\nname: Abc\ndescription: b\n---\nbody", wantErr: "invalid name"},
		{name: "path in name", in: "---\nname: ../etc\ndescription: b\n---\nbody", wantErr: "invalid name"},
		{name: "double hyphen", in: "---\nname: a--b\ndescription: b\n---\nbody", wantErr: "invalid name"},
		{name: "trailing hyphen", in: "---\nname: a-\ndescription: b\n---\nbody", wantErr: "invalid name"},
		{name: "long name", in: "---\nname: " + strings.Repeat("a", MaxNameLen+1) + "\ndescription: b\n---\nbody", wantErr: "longer than"},
		{name: "long description", in: "---\nname: a\ndescription: " + long + "\n---\nbody", wantErr: "shorten it"},
		{name: "empty body", in: "---\nname: a\ndescription: b\n---\n  \n", wantErr: "empty body"},
		{name: "invalid utf8", in: "---\nname: a\ndescription: \xff\n---\nbody", wantErr: "UTF-8"},
		{name: "nul byte", in: "---\nname: a\ndescription: b\n---\nbo\x00dy", wantErr: "NUL"},
		{name: "oversize", in: "---\nname: a\ndescription: b\n---\n" + strings.Repeat("x", MaxSize), wantErr: "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pb, err := Parse([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pb.Name != tc.wantName || pb.Description != tc.wantDesc || pb.Body != tc.wantBody {
				t.Fatalf("got %+v", pb)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\nbody"))
	f.Add([]byte("---\r\nname: 'a'\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := Parse(data)
		if err != nil {
			return
		}
		if validName(pb.Name) != nil || pb.Description == "" || len(pb.Description) > MaxDescriptionLen || pb.Body == "" {
			t.Fatalf("accepted an invalid playbook: %+v", pb)
		}
		if len(data) > MaxSize {
			t.Fatalf("accepted %d bytes", len(data))
		}
	})
}

// The pods playbook teaches the order an engineer follows on Kubernetes
// (issue 37): the unhealthy pods, their last termination, the Warning
// events, the latest rollout, then the service's logs and metrics.
func TestBuiltinPodRestartsOrder(t *testing.T) {
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Get("diagnose-pod-restarts")
	if !ok {
		t.Fatal("no built-in playbook diagnose-pod-restarts")
	}
	at := -1
	for _, step := range []string{`"view": "pods"`, "`last_termination`", `"type": "Warning"`, `"view": "rollouts"`, "`query_logs`", "`query_metrics` when offered"} {
		i := strings.Index(p.Body, step)
		if i <= at {
			t.Fatalf("%q is missing or out of order (at %d, after %d) in:\n%s", step, i, at, p.Body)
		}
		at = i
	}
}
